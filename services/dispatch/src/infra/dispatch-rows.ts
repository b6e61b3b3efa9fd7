import type { Coordinate } from "@tawsil/domain";
import type { DispatchJob } from "../domain/dispatch-job";
import type { Driver } from "../domain/driver";
import type { Offer } from "../domain/offer";
import type { DispatchJob as JobRow, Driver as DriverRow, Offer as OfferRow } from "./prisma/generated/client";

/** Model rows to the domain's shapes: coordinates travel as pairs of microdegree columns. */
const point = (latitudeMicro: number, longitudeMicro: number): Coordinate => ({ latitudeMicro, longitudeMicro });

export function jobFromRow(row: JobRow): DispatchJob {
  return {
    shipmentId: row.shipmentId,
    merchantId: row.merchantId,
    cityCode: row.cityCode,
    serviceLevel: row.serviceLevel,
    pickup: point(row.pickupLatitudeMicro, row.pickupLongitudeMicro),
    destination: point(row.destinationLatitudeMicro, row.destinationLongitudeMicro),
    weightGrams: row.weightGrams,
    longestSideMm: row.longestSideMm,
    requirements: row.requirements,
    cashOnDelivery: row.cashOnDelivery,
    state: row.state,
    shipmentVersion: row.shipmentVersion,
    attempts: row.attempts,
    triedDriverIds: row.triedDriverIds,
    deadline: row.deadline,
    unresolvedCount: row.unresolvedCount,
    retryAt: row.retryAt,
    offerableAt: row.offerableAt,
    delivery:
      row.pickupAddress === null
        ? undefined
        : { pickupAddress: row.pickupAddress, destinationAddress: row.destinationAddress ?? "", codAmount: row.codAmount ?? "0.00", recipientName: row.recipientName ?? "", recipientPhone: row.recipientPhone ?? "" },
  };
}

export function driverFromRow(row: DriverRow): Driver {
  return {
    id: row.id,
    carrierServiceId: row.carrierServiceId,
    cityCode: row.cityCode,
    available: row.available,
    availableSince: row.availableSince,
    position: row.latitudeMicro === null || row.longitudeMicro === null ? undefined : point(row.latitudeMicro, row.longitudeMicro),
    currentShipmentId: row.currentShipmentId,
  };
}

export const offerFromRow = (row: OfferRow): Offer => ({ id: row.id, shipmentId: row.shipmentId, driverId: row.driverId, state: row.state, expiresAt: row.expiresAt });
