import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import {
  PaymentMethod as ProtoPaymentMethod,
  PublicStatus as ProtoPublicStatus,
  ShipmentSchema,
  ShipmentState as ProtoState,
  type Shipment as ShipmentMessage,
} from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { publicStatusOf, type ShipmentState } from "../domain/lifecycle";
import { maskPhone, type Place, type Shipment, type ShipmentChange } from "../domain/shipment";
import type { TrackingLink } from "../domain/tracking-link";

export function stateToProto(state: ShipmentState): ProtoState {
  return ProtoState[state];
}

export function stateFromProto(state: ProtoState): ShipmentState | null {
  return state === ProtoState.UNSPECIFIED ? null : (ProtoState[state] as ShipmentState);
}

const place = (value: Place) => ({ coordinate: value.coordinate, addressLine: value.addressLine, cityCode: value.cityCode });

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

export const SHIPMENT_TOPIC = "shipment.shipment.events.v1";
export const SHIPMENT_CHANGED_TYPE = "tawsil.shipment.v1.ShipmentChanged";

/**
 * The outbox payload of a change; occur_time is the change's own time (creation, approval or now).
 * Every event carries the tracking code's hash, so a projection may start from any of them, and
 * the tracking URL the responses carry, which the webhook sends as data.trackingUrl (decisions.md
 * section 11: never empty).
 */
export function shipmentChangedPayload(change: ShipmentChange, at: Date, link: TrackingLink): Uint8Array {
  const shipment = shipmentToProto(change.shipment);
  shipment.trackingUrl = link.url;
  return toBinary(
    ShipmentChangedSchema,
    create(ShipmentChangedSchema, {
      shipment,
      previousState: change.previousState === null ? ProtoState.UNSPECIFIED : stateToProto(change.previousState),
      publicStatusChanged: change.publicStatusChanged,
      occurTime: timestampFromDate(at),
      trackingCodeSha256: link.codeSha256,
    }),
  );
}
