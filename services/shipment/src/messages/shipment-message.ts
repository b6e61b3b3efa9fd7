import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  PaymentMethod as ProtoPaymentMethod,
  PublicStatus as ProtoPublicStatus,
  ShipmentSchema,
  ShipmentState as ProtoState,
  type Shipment as ShipmentMessage,
} from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { publicStatusOf, type ShipmentState } from "../domain/lifecycle";
import { maskPhone, type Place, type Shipment } from "../domain/shipment";

export function stateToProto(state: ShipmentState): ProtoState {
  return ProtoState[state];
}

export function stateFromProto(state: ProtoState): ShipmentState | null {
  return state === ProtoState.UNSPECIFIED ? null : (ProtoState[state] as ShipmentState);
}

const place = (value: Place) => ({ coordinate: value.coordinate, addressLine: value.addressLine, cityCode: value.cityCode });

/*
 * The shipment as a protobuf message: what the RPC edge answers (rpc/), what the events carry
 * (infra/shipment-events.ts) and what an idempotent replay answers (the snapshot). Shared by both
 * edges, so it is neither's: it depends on the domain alone.
 */

/**
 * The aggregate as other services and the gateway read it. The tracking URL is left empty: the
 * RPC edge derives it for each response (rpc/messages.ts), so a stored snapshot never holds it, and
 * an event gets it from shipmentChangedPayload. The recipient's phone leaves masked; the frozen
 * terms do not leave at all, nor does the delivery PIN (merchantShipmentToProto adds it for the
 * merchant's answers alone: events, dispatch and tracking never see it this way).
 */
export function shipmentToProto(shipment: Shipment): ShipmentMessage {
  return create(ShipmentSchema, {
    shipmentId: shipment.id,
    shipmentNumber: shipment.shipmentNumber,
    merchantId: shipment.merchantId,
    externalReference: shipment.externalReference,
    state: stateToProto(shipment.state),
    publicStatus: ProtoPublicStatus[publicStatusOf(shipment.state)],
    recipientName: shipment.recipientName,
    maskedRecipientPhone: maskPhone(shipment.recipientPhone),
    totalWeightKilograms: shipment.totalWeightKilograms,
    declaredValue: shipment.declaredValue,
    codAmount: shipment.codAmount,
    currency: shipment.currency,
    paymentMethod: ProtoPaymentMethod[shipment.paymentMethod],
    ...(shipment.pickupWindow
      ? { pickupWindowStart: timestampFromDate(shipment.pickupWindow.start), pickupWindowEnd: timestampFromDate(shipment.pickupWindow.end) }
      : {}),
    createTime: timestampFromDate(shipment.createdAt),
    ...(shipment.approvedAt ? { approveTime: timestampFromDate(shipment.approvedAt) } : {}),
    version: shipment.version,
    destination: place(shipment.destination),
    pickup: place(shipment.pickup),
    items: shipment.items.map((item) => ({
      description: item.description,
      quantity: item.quantity,
      weightKilograms: item.weightKilograms,
      lengthCentimetres: item.lengthCentimetres ?? "",
      widthCentimetres: item.widthCentimetres ?? "",
      heightCentimetres: item.heightCentimetres ?? "",
    })),
    requirements: [...shipment.requirements],
    branchCode: shipment.branchCode ?? "",
    reasonCode: shipment.reasonCode ?? "",
    timelineMedia: shipment.timelineMedia.map((m) => ({ mediaAssetId: m.mediaAssetId, purpose: m.purpose, sortOrder: m.sortOrder })),
  });
}

/** The aggregate as the merchant reads it (create, read, list, cancel): with the delivery PIN. */
export function merchantShipmentToProto(shipment: Shipment): ShipmentMessage {
  const message = shipmentToProto(shipment);
  message.deliveryPin = shipment.deliveryPin ?? "";
  return message;
}

/** The stored answer of a create or cancel, replayed to the merchant: the PIN included. */
export function snapshotOf(shipment: Shipment): Uint8Array {
  return toBinary(ShipmentSchema, merchantShipmentToProto(shipment));
}
