import type { Job, Offer } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import type { Coordinate } from "@tawsil/proto/tawsil/common/v1/geo_pb";

const degrees = (point: Coordinate | undefined) => ({ latitude: (point?.latitudeMicro ?? 0) / 1e6, longitude: (point?.longitudeMicro ?? 0) / 1e6 });

/** What a driver is told of a shipment, offered or carried (decisions.md section 17). */
function parcelOf(job: Offer | Job) {
  return {
    shipmentId: job.shipmentId,
    cityCode: job.cityCode,
    pickup: degrees(job.pickup),
    pickupAddress: job.pickupAddress,
    destination: degrees(job.destination),
    destinationAddress: job.destinationAddress,
    parcel: { weightKilograms: job.weightGrams / 1000, longestSideCentimetres: job.longestSideMm / 10 },
    requirements: [...job.requirements],
    cashOnDelivery: job.cashOnDelivery,
    // Cash to collect at the door, SAR (0 when prepaid).
    codAmount: Number(job.codAmount?.amount ?? "0"),
  };
}

export function renderOffer(offer: Offer) {
  return { offerId: offer.offerId, ...parcelOf(offer), expiresAt: new Date(Number(offer.expireTimeUnixMs)).toISOString() };
}

/** A current job also names the recipient: the driver is told while the job is its, never after. */
export function renderJob(job: Job) {
  return { ...parcelOf(job), recipient: { name: job.recipientName, phone: job.recipientPhone } };
}
