import { fromBinary } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { PaymentMethod, ShipmentSchema, type Shipment as ShipmentMessage } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { DispatchStep as ProtoDispatchStep, type Idempotency, type ShipmentDraft } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import type { IdempotencyInput } from "../app/idempotency";
import type { DraftInput } from "../domain/draft";
import { DISPATCH_STEPS, type DispatchStep } from "../domain/lifecycle";
import type { Shipment } from "../domain/shipment";
import { trackingUrl } from "../domain/tracking-link";
import { merchantShipmentToProto, shipmentToProto } from "../messages/shipment-message";

export interface TrackingLinks {
  readonly publicBaseUrl: string;
  readonly secret: Uint8Array;
}

/** A stored snapshot as the response: the same bytes every time, plus the derived tracking URL. */
export function shipmentFromSnapshot(snapshot: Uint8Array, links: TrackingLinks): ShipmentMessage {
  const shipment = fromBinary(ShipmentSchema, snapshot);
  shipment.trackingUrl = trackingUrl(links.publicBaseUrl, links.secret, shipment.shipmentId);
  return shipment;
}

/** `forMerchant`: the gateway's answer to the merchant, the only one that carries the delivery PIN. */
export function shipmentMessage(shipment: Shipment, links: TrackingLinks, forMerchant = false): ShipmentMessage {
  const message = forMerchant ? merchantShipmentToProto(shipment) : shipmentToProto(shipment);
  message.trackingUrl = trackingUrl(links.publicBaseUrl, links.secret, shipment.id);
  return message;
}

export function idempotencyFromProto(idempotency: Idempotency | undefined): IdempotencyInput {
  return { key: idempotency?.key ?? "", clientId: idempotency?.clientId ?? "", fingerprint: idempotency?.fingerprint ?? "" };
}

/** null for UNSPECIFIED and for a value newer than this service. */
export function dispatchStepFromProto(step: ProtoDispatchStep): DispatchStep | null {
  const name = ProtoDispatchStep[step] as string | undefined;
  return DISPATCH_STEPS.find((known) => known === name) ?? null;
}

export function draftFromProto(draft: ShipmentDraft | undefined): DraftInput {
  const pickup = draft?.pickup;
  return {
    externalReference: draft?.externalReference ?? "",
    pickup:
      pickup?.case === "savedLocationCode"
        ? { kind: "saved", code: pickup.value }
        : pickup?.case === "pickupCoordinate"
          ? { kind: "coordinate", coordinate: pickup.value }
          : null,
    branchCode: draft?.branchCode ?? "",
    recipientName: draft?.recipientName ?? "",
    recipientPhone: draft?.recipientPhone ?? "",
    alternateContactName: draft?.alternateContactName ?? "",
    alternateContactPhone: draft?.alternateContactPhone ?? "",
    destination: draft?.destination,
    destinationAddressLine: draft?.destinationAddressLine ?? "",
    destinationCityCode: draft?.destinationCityCode ?? "",
    items: (draft?.items ?? []).map((item) => ({
      description: item.description,
      quantity: item.quantity,
      weightKilograms: item.weightKilograms,
      lengthCentimetres: item.lengthCentimetres,
      widthCentimetres: item.widthCentimetres,
      heightCentimetres: item.heightCentimetres,
    })),
    declaredValue: draft?.declaredValue ?? "",
    codAmount: draft?.codAmount ?? "",
    currency: draft?.currency ?? "",
    paymentMethod: draft?.paymentMethod === PaymentMethod.COD ? "COD" : draft?.paymentMethod === PaymentMethod.PREPAID ? "PREPAID" : null,
    pickupWindowStart: draft?.pickupWindowStart ? timestampDate(draft.pickupWindowStart) : null,
    pickupWindowEnd: draft?.pickupWindowEnd ? timestampDate(draft.pickupWindowEnd) : null,
    requirements: draft?.requirements ?? [],
    totalWeightKilograms: draft?.totalWeightKilograms ?? "",
    timelineMedia: (draft?.timelineMedia ?? []).map((m) => ({ mediaAssetId: m.mediaAssetId, purpose: m.purpose, sortOrder: m.sortOrder })),
  };
}
