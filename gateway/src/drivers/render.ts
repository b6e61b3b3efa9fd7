import type { Job, Offer } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import type { Coordinate } from "@tawsil/proto/tawsil/common/v1/geo_pb";

const degrees = (point: Coordinate | undefined) => ({ latitude: (point?.latitudeMicro ?? 0) / 1e6, longitude: (point?.longitudeMicro ?? 0) / 1e6 });

/** What a driver is told of a shipment, offered or carried (decisions.md section 17). */
function parcelOf(job: Pick<Offer, "shipmentId" | "pickup" | "destination" | "cityCode" | "weightGrams" | "longestSideMm" | "requirements" | "cashOnDelivery">) {
  return {
    shipmentId: job.shipmentId,
    cityCode: job.cityCode,
    pickup: degrees(job.pickup),
    destination: degrees(job.destination),
    parcel: { weightKilograms: job.weightGrams / 1000, longestSideCentimetres: job.longestSideMm / 10 },
    requirements: [...job.requirements],
    cashOnDelivery: job.cashOnDelivery,
  };
}

export function renderOffer(offer: Offer) {
  return { offerId: offer.offerId, ...parcelOf(offer), expiresAt: new Date(Number(offer.expireTimeUnixMs)).toISOString() };
}

export function renderJob(job: Job) {
  return parcelOf(job);
}
