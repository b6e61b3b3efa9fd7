import { isRequirement, type Coordinate, type Requirement } from "@tawsil/domain";
import { isClosed, newJob, offerableFrom, type DeliveryFacts, type DispatchJob, type ShipmentSnapshot } from "../domain/dispatch-job";
import { evaluateEligibility } from "../domain/eligibility";
import { nowOf, type DispatchContext } from "./context";
import { followShipment } from "./job-refresh";
import type { JobWork } from "./ports";

/** A shipment as dispatch needs it from a ShipmentChanged event. */
export interface ShipmentChange extends ShipmentSnapshot {
  readonly shipmentId: string;
  readonly merchantId: string;
  readonly cityCode: string;
  readonly pickup: Coordinate | undefined;
  readonly destination: Coordinate | undefined;
  readonly weightGrams: number;
  readonly longestSideMm: number;
  readonly requirements: readonly string[];
  readonly cashOnDelivery: boolean;
  /** When the pickup window starts; a later one holds the first offer back (offerLeadMs). */
  readonly pickupWindowStart: Date | undefined;
  /** What the driver is told of the delivery. */
  readonly delivery?: DeliveryFacts | undefined;
  /** When the shipment was created (its create_time). */
  readonly createdAt?: Date | undefined;
}

/**
 * Applies one shipment change (in the consumer's transaction): a shipment ready for dispatch (or
 * unresolved) becomes a job; a terminal one closes its job; any other change only advances the
 * version dispatch last saw. Versions already applied are ignored, so redeliveries and the echo
 * of dispatch's own steps change nothing. A new or changed job wakes the dispatcher's leader on
 * commit (this consumer may run on any replica): it offers the job, or, for one held for its
 * pickup window, arms its timer for the instant the job may be offered.
 */
export async function applyShipmentChange(ctx: DispatchContext, work: JobWork, change: ShipmentChange): Promise<void> {
  // A shipment ready for dispatch is new here but for a redelivery or a step's echo: its job is
  // inserted at once, and only a job already there is locked and read (one statement, not two).
  if ((change.state === "READY_FOR_DISPATCH" || change.state === "DISPATCH_UNRESOLVED") && (await createJob(ctx, work, change, change.state))) return;
  const job = await work.lockJob(change.shipmentId);
  if (!job || change.version <= job.shipmentVersion || isClosed(job)) return;
  await followShipment(ctx, work, job, change);
  await work.wakeForJob(job.shipmentId);
}

/** A new job, its wake-up written with it (JobWork.createJob); false when the shipment has one already or cannot have one. */
async function createJob(ctx: DispatchContext, work: JobWork, change: ShipmentChange, state: "READY_FOR_DISPATCH" | "DISPATCH_UNRESOLVED"): Promise<boolean> {
  const planned = plannedJob(ctx, change, state);
  if (!planned) {
    ctx.logger.error({ shipmentId: change.shipmentId }, "a shipment ready for dispatch has no pickup, destination or city; ignored");
    return false;
  }
  const created = await work.createJob(planned.job);
  if (created && !planned.eligible) ctx.logger.warn({ shipmentId: change.shipmentId, cityCode: change.cityCode }, "no service is eligible for a shipment ready for dispatch; it waits");
  return created;
}

/**
 * The job a change ready for dispatch (or unresolved) creates, for the consumer to insert in one
 * statement with its claim when it comes alone (the create's event): undefined for any other
 * change, and for one the handler must judge and log (no pickup, destination or city, or no
 * eligible service).
 */
export function jobCreatedBy(ctx: DispatchContext, change: ShipmentChange): DispatchJob | undefined {
  if (change.state !== "READY_FOR_DISPATCH" && change.state !== "DISPATCH_UNRESOLVED") return undefined;
  const planned = plannedJob(ctx, change, change.state);
  return planned?.eligible ? planned.job : undefined;
}

function plannedJob(ctx: DispatchContext, change: ShipmentChange, state: "READY_FOR_DISPATCH" | "DISPATCH_UNRESOLVED"): { job: DispatchJob; eligible: boolean } | undefined {
  const { pickup, destination, cityCode, shipmentId } = change;
  if (!pickup || !destination || !cityCode) return undefined;
  const requirements = change.requirements.filter((r): r is Requirement => isRequirement(r));
  const parcel = { cityCode, weightGrams: change.weightGrams, longestSideMm: change.longestSideMm, requirements: new Set(requirements), cashOnDelivery: change.cashOnDelivery };
  const verdict = evaluateEligibility(ctx.catalogue.current(), parcel);
  const job = newJob(
    {
      shipmentId,
      merchantId: change.merchantId,
      cityCode,
      serviceLevel: verdict.eligible ? verdict.level : null,
      pickup,
      destination,
      weightGrams: parcel.weightGrams,
      longestSideMm: parcel.longestSideMm,
      requirements,
      cashOnDelivery: parcel.cashOnDelivery,
      delivery: change.delivery,
      shipmentVersion: change.version,
      shipmentCreatedAt: change.createdAt,
    },
    state,
    offerableFrom(change.pickupWindowStart, ctx.offerLeadMs, nowOf(ctx)),
  );
  return { job, eligible: verdict.eligible };
}
