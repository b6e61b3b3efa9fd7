import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { PaymentMethod, PublicStatus, ShipmentState, type Place, type Shipment } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";

/** Canonical state names, as the contract spells them. */
export const STATE_NAMES: Record<ShipmentState, string | null> = {
  [ShipmentState.UNSPECIFIED]: null,
  [ShipmentState.PENDING_APPROVAL]: "PENDING_APPROVAL",
  [ShipmentState.READY_FOR_DISPATCH]: "READY_FOR_DISPATCH",
  [ShipmentState.OFFERED]: "OFFERED",
  [ShipmentState.ACCEPTED]: "ACCEPTED",
  [ShipmentState.DISPATCH_UNRESOLVED]: "DISPATCH_UNRESOLVED",
  [ShipmentState.PICKED_UP]: "PICKED_UP",
  [ShipmentState.OUT_FOR_DELIVERY]: "OUT_FOR_DELIVERY",
  [ShipmentState.DELIVERED]: "DELIVERED",
  [ShipmentState.DELIVERY_FAILED]: "DELIVERY_FAILED",
  [ShipmentState.CANCELLED]: "CANCELLED",
};

export const PUBLIC_NAMES: Record<PublicStatus, string | null> = {
  [PublicStatus.UNSPECIFIED]: null,
  [PublicStatus.CREATED]: "CREATED",
  [PublicStatus.ASSIGNED]: "ASSIGNED",
  [PublicStatus.PICKED_UP]: "PICKED_UP",
  [PublicStatus.OUT_FOR_DELIVERY]: "OUT_FOR_DELIVERY",
  [PublicStatus.DELIVERED]: "DELIVERED",
  [PublicStatus.FAILED]: "FAILED",
  [PublicStatus.CANCELLED]: "CANCELLED",
};

const PAYMENT_NAMES: Record<PaymentMethod, string | null> = {
  [PaymentMethod.UNSPECIFIED]: null,
  [PaymentMethod.PREPAID]: "PREPAID",
  [PaymentMethod.COD]: "COD",
};

const iso = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);
const num = (decimal: string): number | null => (decimal === "" ? null : Number(decimal));
const degrees = (micro: number | undefined): number | null => (micro === undefined ? null : Number((micro / 1e6).toFixed(6)));

function place(p: Place | undefined) {
  return {
    addressLine: p?.addressLine ?? null,
    cityCode: p?.cityCode ?? null,
    latitude: degrees(p?.coordinate?.latitudeMicro),
    longitude: degrees(p?.coordinate?.longitudeMicro),
  };
}

/** The strong ETag of a shipment: its version, quoted. */
export const etagOf = (s: Shipment): string => `"${s.version}"`;

/** Shape A (partner-safe): every field present, codAmount null when prepaid. */
export function renderShapeA(s: Shipment) {
  const cod = Number(s.codAmount || "0");
  return {
    id: s.shipmentId,
    reference: s.externalReference,
    status: PUBLIC_NAMES[s.publicStatus],
    trackingUrl: s.trackingUrl,
    codAmount: cod > 0 ? cod : null,
    createdAt: iso(s.createTime),
    version: Number(s.version),
  };
}

/** Shape B (canonical): every field present, null where it does not apply, [] for empty lists. */
export function renderShapeB(s: Shipment) {
  return {
    shipmentId: s.shipmentId,
    shipmentNumber: s.shipmentNumber,
    externalReference: s.externalReference,
    state: STATE_NAMES[s.state],
    // Additive in /v2 (decisions.md section 15): shape A always had the customer's link, shape B now too.
    trackingUrl: s.trackingUrl,
    recipientName: s.recipientName,
    maskedRecipientPhone: s.maskedRecipientPhone,
    totalWeightKilograms: num(s.totalWeightKilograms),
    declaredValue: num(s.declaredValue || "0"),
    codAmount: num(s.codAmount || "0"),
    currency: s.currency,
    paymentMethod: PAYMENT_NAMES[s.paymentMethod],
    pickupWindowStart: iso(s.pickupWindowStart),
    pickupWindowEnd: iso(s.pickupWindowEnd),
    createdAt: iso(s.createTime),
    approvedAt: iso(s.approveTime),
    version: Number(s.version),
    destination: place(s.destination),
    pickup: place(s.pickup),
    items: s.items.map((item) => ({
      description: item.description,
      quantity: item.quantity,
      weightKilograms: num(item.weightKilograms),
      lengthCentimetres: num(item.lengthCentimetres),
      widthCentimetres: num(item.widthCentimetres),
      heightCentimetres: num(item.heightCentimetres),
    })),
    requirements: [...s.requirements],
    timelineMedia: s.timelineMedia.map((m) => ({ mediaAssetId: m.mediaAssetId, purpose: m.purpose, sortOrder: m.sortOrder })),
    // Additive in /v2: the recipient's PIN for PIN_ON_DELIVERY (decisions.md section 17), null otherwise.
    deliveryPin: s.deliveryPin || null,
  };
}
