import { following, type DispatchJob, type ShipmentSnapshot } from "../domain/dispatch-job";
import { nowOf, type DispatchContext } from "./context";
import type { JobWork } from "./ports";

/**
 * Brings a job in line with its shipment after the shipment service refused a step (a cancel won
 * the race, a stale version, a reservation whose commit was lost). The shipment is read first,
 * outside any transaction, then applied under the job's lock, unless the job moved past that
 * version meanwhile (an event applied by the consumer is newer than what was read).
 */
export async function refreshJob(ctx: DispatchContext, job: DispatchJob): Promise<void> {
  const snapshot = (await ctx.shipments.read(job.merchantId, job.shipmentId)) ?? { state: "CANCELLED", version: job.shipmentVersion };
  await ctx.store.transaction(async (work) => {
    const current = await work.lockJob(job.shipmentId);
    if (!current || snapshot.version < current.shipmentVersion) return;
    await followShipment(ctx, work, current, snapshot);
  });
}

/** The job follows the shipment's state; open offers of a job that is no longer offering are withdrawn. */
export async function followShipment(ctx: DispatchContext, work: JobWork, job: DispatchJob, snapshot: ShipmentSnapshot): Promise<DispatchJob> {
  const next = following(job, snapshot, nowOf(ctx));
  if (next.state !== "OFFERED") await work.withdrawOpenOffers(job.shipmentId);
  await work.saveJob(next);
  return next;
}
