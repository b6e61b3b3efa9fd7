import type { Coordinate } from "@tawsil/domain";
import { TawsilProblemError, type DriverJob, type DriverOffer, type TawsilDriverClient } from "@tawsil/sdk";
import { RefusedError, type Delivery, type DriverApp, type Offer, type Step } from "../app/ports";
import { generatedPng } from "./generated-png";

const degrees = (c: Coordinate) => ({ latitude: c.latitudeMicro / 1e6, longitude: c.longitudeMicro / 1e6 });
const micro = (c: { latitude: number; longitude: number }): Coordinate => ({ latitudeMicro: Math.round(c.latitude * 1e6), longitudeMicro: Math.round(c.longitude * 1e6) });

function deliveryOf(shown: DriverOffer | DriverJob): Delivery {
  return { shipmentId: shown.shipmentId, pickup: micro(shown.pickup), destination: micro(shown.destination), requirements: shown.requirements, codAmount: shown.codAmount };
}

/**
 * A problem of the 4xx family is the API saying no (the shipment moved on, the offer lapsed, a
 * proof refused): the driver drops what it was doing. 408 and 429 are waits, 5xx and network
 * failures outages: both are tried again.
 */
async function refusals<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof TawsilProblemError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429) throw new RefusedError(err.status, err.code);
    throw err;
  }
}

/** A driver's app over the gateway, through the SDK's driver client with the driver's own OAuth client. */
export function driverAppOver(client: TawsilDriverClient): DriverApp {
  return {
    setOnShift: (onShift, position) => refusals(async () => void (await client.setAvailability({ onShift, position: degrees(position) }))),
    reportFixes: (fixes) => refusals(async () => void (await client.reportLocations(fixes.map((fix) => ({ ...degrees(fix.position), accuracyMetres: 10, recordedAt: new Date(fix.recordedAtMs).toISOString() }))))),
    offers: (waitSeconds, signal) => refusals(async () => (await client.offers({ waitSeconds, signal })).map((offer): Offer => ({ ...deliveryOf(offer), offerId: offer.offerId }))),
    accept: (offerId) => refusals(async () => void (await client.acceptOffer(offerId))),
    jobs: () => refusals(async () => (await client.jobs()).map(deliveryOf)),
    reportStep: (shipmentId, step, key) => refusals(async () => void (await client.reportStep(shipmentId, stepRequest(step), { idempotencyKey: key }))),
    async uploadEvidence(purpose) {
      const bytes = generatedPng();
      return refusals(async () => {
        const asset = await client.media.create({ purpose, contentType: "image/png", sizeBytes: bytes.length });
        await client.media.upload(asset.mediaAssetId, bytes, "image/png");
        return asset.mediaAssetId;
      });
    },
  };
}

function stepRequest(step: Step) {
  if (step.step === "DELIVERY_FAILED") return { step: step.step, reasonCode: step.reasonCode };
  if (step.step !== "DELIVERED") return { step: step.step };
  const { deliveryPin, evidenceMediaAssetIds, codCollected } = step.proof;
  return {
    step: step.step,
    ...(deliveryPin ? { deliveryPin } : {}),
    ...(evidenceMediaAssetIds.length > 0 ? { evidenceMediaAssetIds: [...evidenceMediaAssetIds] } : {}),
    ...(codCollected !== undefined ? { codCollected: { amount: codCollected, currency: "SAR" as const } } : {}),
  };
}
