import { assigned } from "../domain/dispatch-job";
import { offerNotOpen } from "../domain/errors";
import { isOpenAt } from "../domain/offer";
import { nowOf, type DispatchContext } from "./context";

/**
 * An open, unexpired offer becomes the driver's shipment. Checked under the job's lock, accepted
 * by the shipment service with no transaction open (against the version the offer was made at, so
 * a re-offer or a cancel that got there first makes it fail), then recorded under the lock again.
 * Once the shipment service has accepted, the acceptance is recorded even if the offer lapsed
 * meanwhile: the shipment is the driver's, and the dispatcher's own step will have been refused.
 */
export async function acceptOffer(ctx: DispatchContext, parties: { shipmentId: string; driverId: string }, offerId: string): Promise<void> {
  const { shipmentId, driverId } = parties;
  const expectedVersion = await ctx.store.transaction(async (work) => {
    const job = await work.lockJob(shipmentId);
    const offer = await work.offer(offerId);
    if (!job || !offer || !isOpenAt(offer, nowOf(ctx))) throw offerNotOpen();
    const driver = await work.driver(driverId);
    if (driver?.currentShipmentId) throw offerNotOpen();
    return job.shipmentVersion;
  });
  const step = await ctx.shipments.applyStep(shipmentId, "ACCEPT", expectedVersion);
  if (!step.ok) {
    ctx.logger.warn({ shipmentId, reason: step.reason }, "the shipment service refused an acceptance");
    throw offerNotOpen();
  }
  const saved = await ctx.store.transaction(async (work) => {
    const job = await work.lockJob(shipmentId);
    await work.setOfferState(offerId, "ACCEPTED");
    if (step.recipientPhone) await work.recordRecipientPhone(shipmentId, step.recipientPhone);
    if (job) await work.saveJob(assigned(job, step.version));
    await work.updateDriver(driverId, { currentShipmentId: shipmentId });
    await work.recordAssignmentChange({ shipmentId, offerId, driverId, change: "ACCEPTED", at: nowOf(ctx) });
    return job !== undefined;
  });
  if (saved) ctx.echoes?.awaited(shipmentId, step.version);
}
