import type { Shipment } from "../domain/shipment";
import type { Prisma, Shipment as ShipmentRow, ShipmentItem as ItemRow, MediaAsset as MediaRow } from "./prisma/generated/client";

/** Decimals leave the database as canonical strings with the column's scale. */
const fixed = (value: Prisma.Decimal, places: number) => value.toFixed(places);
const plain = (value: Prisma.Decimal | null) => (value === null ? null : value.toString());

/** `timelineMedia` absent: a row read without the relation, whose reader needs no timeline. */
export function shipmentFromRow(row: ShipmentRow & { items: ItemRow[]; timelineMedia?: Pick<MediaRow, "id" | "purpose" | "sortOrder">[] }): Shipment {
  return {
    id: row.id,
    shipmentNumber: row.shipmentNumber,
    merchantId: row.merchantId,
    externalReference: row.externalReference,
    state: row.state,
    version: row.version,
    recipientName: row.recipientName,
    recipientPhone: row.recipientPhone,
    alternateContactName: row.alternateContactName,
    alternateContactPhone: row.alternateContactPhone,
    totalWeightKilograms: fixed(row.totalWeightKilograms, 3),
    declaredValue: fixed(row.declaredValue, 2),
    codAmount: fixed(row.codAmount, 2),
    currency: row.currency,
    paymentMethod: row.paymentMethod,
    pickupWindow: row.pickupWindowStart && row.pickupWindowEnd ? { start: row.pickupWindowStart, end: row.pickupWindowEnd } : null,
    createdAt: row.createdAt,
    approvedAt: row.approvedAt,
    pickup: {
      coordinate: { latitudeMicro: row.pickupLatitudeMicro, longitudeMicro: row.pickupLongitudeMicro },
      addressLine: row.pickupAddressLine,
      cityCode: row.pickupCityCode,
    },
    destination: {
      coordinate: { latitudeMicro: row.destLatitudeMicro, longitudeMicro: row.destLongitudeMicro },
      addressLine: row.destAddressLine,
      cityCode: row.destCityCode,
    },
    items: [...row.items]
      .sort((a, b) => a.position - b.position)
      .map((item) => ({
        description: item.description,
        quantity: item.quantity,
        weightKilograms: fixed(item.weightKilograms, 3),
        lengthCentimetres: plain(item.lengthCentimetres),
        widthCentimetres: plain(item.widthCentimetres),
        heightCentimetres: plain(item.heightCentimetres),
      })),
    requirements: row.requirements,
    branchCode: row.branchCode,
    reasonCode: row.reasonCode,
    deliveryPin: row.deliveryPin,
    timelineMedia: (row.timelineMedia ?? []).map((m) => ({ mediaAssetId: m.id, purpose: m.purpose, sortOrder: m.sortOrder ?? 0 })),
    terms: {
      rateCardId: row.rateCardId,
      rateCardVersion: row.rateCardVersion,
      serviceLevel: row.serviceLevel,
      price: fixed(row.price, 2),
      distanceMetres: row.distanceMetres,
    },
  };
}

/** The insert of a new shipment and its items, with the hash of its tracking code. */
export function shipmentToRow(shipment: Shipment, trackingCodeSha256: Uint8Array): Prisma.ShipmentCreateInput {
  return {
    id: shipment.id,
    trackingCodeSha256: Buffer.from(trackingCodeSha256),
    shipmentNumber: shipment.shipmentNumber,
    merchantId: shipment.merchantId,
    externalReference: shipment.externalReference,
    state: shipment.state,
    version: shipment.version,
    recipientName: shipment.recipientName,
    recipientPhone: shipment.recipientPhone,
    alternateContactName: shipment.alternateContactName,
    alternateContactPhone: shipment.alternateContactPhone,
    totalWeightKilograms: shipment.totalWeightKilograms,
    declaredValue: shipment.declaredValue,
    codAmount: shipment.codAmount,
    currency: shipment.currency,
    paymentMethod: shipment.paymentMethod,
    pickupWindowStart: shipment.pickupWindow?.start ?? null,
    pickupWindowEnd: shipment.pickupWindow?.end ?? null,
    createdAt: shipment.createdAt,
    approvedAt: shipment.approvedAt,
    pickupLatitudeMicro: shipment.pickup.coordinate.latitudeMicro,
    pickupLongitudeMicro: shipment.pickup.coordinate.longitudeMicro,
    pickupAddressLine: shipment.pickup.addressLine,
    pickupCityCode: shipment.pickup.cityCode,
    destLatitudeMicro: shipment.destination.coordinate.latitudeMicro,
    destLongitudeMicro: shipment.destination.coordinate.longitudeMicro,
    destAddressLine: shipment.destination.addressLine,
    destCityCode: shipment.destination.cityCode,
    requirements: [...shipment.requirements],
    branchCode: shipment.branchCode,
    reasonCode: shipment.reasonCode,
    rateCardId: shipment.terms.rateCardId,
    rateCardVersion: shipment.terms.rateCardVersion,
    serviceLevel: shipment.terms.serviceLevel,
    price: shipment.terms.price,
    distanceMetres: shipment.terms.distanceMetres,
    deliveryPin: shipment.deliveryPin,
    items: {
      create: shipment.items.map((item, position) => ({
        position,
        description: item.description,
        quantity: item.quantity,
        weightKilograms: item.weightKilograms,
        lengthCentimetres: item.lengthCentimetres,
        widthCentimetres: item.widthCentimetres,
        heightCentimetres: item.heightCentimetres,
      })),
    },
  };
}
