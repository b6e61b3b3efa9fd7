import { gaveUp, hasTimedOut, isHeld, jobStateFor, mayBeOfferedTo, mayOfferFirst, offeredTo, type DispatchJob } from "../domain/dispatch-job";
import { chooseDriver } from "../domain/driver-choice";
import { hasLapsed } from "../domain/offer";
import { eligibleServiceIds, nowOf, type DispatchContext } from "./context";
import { refreshJob } from "./job-refresh";
import type { Driver } from "../domain/driver";
import type { JobWork, StepOutcome } from "./ports";

export { unresolvedBackoffMs } from "../domain/dispatch-job";

/** What one step of a job came to, for the dispatcher's timers and retries. */
export interface JobStepOutcome {
  /** An offer was made: the dispatcher's due-time timer must fire by then. */
  readonly offerExpiresAt?: Date;
  /** The shipment service refused a step and the job was refreshed: try again later, not at once. */
  readonly refreshed?: boolean;
  /** The job is held for its pickup window: the dispatcher must try it again at this instant. */
  readonly heldUntil?: Date;
}

/** What the locked read decided to ask of the shipment service, and for which driver. */
type Plan =
  | { readonly kind: "reserve" | "reoffer"; readonly job: DispatchJob; readonly driverId: string }
  | { readonly kind: "give-up"; readonly job: DispatchJob; readonly timedOut: boolean }
  | { readonly kind: "held"; readonly until: Date };

/**
 * Moves one job on: expires its lapsed offer, offers a waiting job to the nearest eligible free
 * driver (reserving the shipment through the shipment service first: a shipment the service
 * refuses, a cancelled one above all, is never offered), re-offers to the next candidate, and gives
 * up (DISPATCH_UNRESOLVED) when no candidate is left or the dispatch timeout passed.
 *
 * In three parts, so no row lock is held while the shipment service answers: a plan from one read
 * of the job (an OFFERED job's, in a transaction that locks it); the call, with no transaction
 * open; a transaction that locks the job and records the outcome if the job is still as planned
 * (or moved only by the echo of this very step). The shipment service's compare-and-set on the
 * version keeps the two sides in step: whatever changed the shipment meanwhile makes the call
 * fail, and the job is refreshed.
 */
export class JobStep {
  constructor(
    private readonly ctx: DispatchContext,
    private readonly unresolvedBaseMs: number,
  ) {}

  async run(shipmentId: string): Promise<JobStepOutcome> {
    const plan = await this.#planned(shipmentId);
    if (!plan) return {};
    if (plan.kind === "held") return { heldUntil: plan.until };
    const outcome = await this.#ask(plan);
    if (!outcome.ok) {
      if (plan.kind === "reserve") this.ctx.logger.info({ shipmentId, reason: outcome.reason }, "reservation refused; refreshing the job");
      await refreshJob(this.ctx, plan.job);
      return { refreshed: true };
    }
    const recorded = await this.ctx.store.transaction((work) => this.#record(work, plan, outcome));
    if (!recorded) return {};
    this.ctx.echoes?.awaited(shipmentId, outcome.version);
    return recorded;
  }

  /**
   * A first look (the job and its city's free drivers, one statement) plans every step that writes
   * nothing here; only an OFFERED job, whose lapsed offer expires in the plan, is planned again
   * under its row lock. A step planned from the look is checked in #record like any other: the
   * job must still be as planned when the outcome is recorded. A new job with no free driver thus
   * costs one statement, not a transaction of four.
   */
  async #planned(shipmentId: string): Promise<Plan | undefined> {
    const look = await this.ctx.store.jobWithFreeDrivers(shipmentId);
    if (!look) return undefined;
    if (look.job.state === "OFFERED") return this.ctx.store.transaction((work) => this.#plan(work, shipmentId));
    return this.#planFirstOffer(look.job, nowOf(this.ctx), async () => this.#choose(look.job, look.freeDrivers));
  }

  /** Under the job's row lock: an OFFERED job's lapsed offer expires, then the job is offered again or given up on. */
  async #plan(work: JobWork, shipmentId: string): Promise<Plan | undefined> {
    const job = await work.lockJob(shipmentId);
    if (!job) return undefined;
    const now = nowOf(this.ctx);
    // No longer OFFERED since the first look: planned as any other job.
    if (job.state !== "OFFERED") return this.#planFirstOffer(job, now, () => this.#candidate(work, job));
    const open = await work.openOffer(shipmentId);
    if (open) {
      if (!hasLapsed(open, now)) return undefined;
      await work.setOfferState(open.id, "EXPIRED");
      await work.recordAssignmentChange({ shipmentId, offerId: open.id, driverId: open.driverId, change: "EXPIRED", at: now });
      // The lapsed offer no longer holds the driver back from other jobs.
      await work.wakeForDriver(open.driverId);
    }
    if (hasTimedOut(job, now)) return { kind: "give-up", job, timedOut: true };
    const driverId = await this.#candidate(work, job);
    return driverId ? { kind: "reoffer", job, driverId } : { kind: "give-up", job, timedOut: false };
  }

  /** A job not OFFERED: held for its window, offered first to the best candidate, or left as it is. */
  async #planFirstOffer(job: DispatchJob, now: Date, candidate: () => Promise<string | undefined>): Promise<Plan | undefined> {
    if (isHeld(job, now) && job.offerableAt) return { kind: "held", until: job.offerableAt };
    if (!mayOfferFirst(job, now)) return undefined;
    const driverId = await candidate();
    return driverId ? { kind: "reserve", job, driverId } : undefined;
  }

  /** The only call to another service, made with no transaction open. */
  #ask(plan: Exclude<Plan, { kind: "held" }>): Promise<StepOutcome> {
    const { shipmentId, shipmentVersion } = plan.job;
    if (plan.kind === "reserve") return this.ctx.shipments.reserveForOffer(shipmentId, shipmentVersion);
    return this.ctx.shipments.applyStep(shipmentId, plan.kind === "reoffer" ? "REOFFER" : "UNRESOLVED", shipmentVersion);
  }

  /** The step's outcome, or undefined when the job moved on and nothing was recorded. */
  async #record(work: JobWork, plan: Exclude<Plan, { kind: "held" }>, outcome: StepOutcome & { ok: true }): Promise<JobStepOutcome | undefined> {
    const { shipmentId } = plan.job;
    const job = await work.lockJob(shipmentId);
    const asPlanned = job !== undefined && job.state === plan.job.state && job.shipmentVersion === plan.job.shipmentVersion;
    const echoed = job !== undefined && job.shipmentVersion === outcome.version && job.state === jobStateFor(outcome.state);
    if (!asPlanned && !echoed) {
      // The shipment moved on past this step (its events are newer): they bring the job in line.
      this.ctx.logger.info({ shipmentId, step: plan.kind }, "the job changed while the shipment service answered; its events decide");
      return undefined;
    }
    const now = nowOf(this.ctx);
    if (plan.kind === "give-up") {
      await work.saveJob(gaveUp(plan.job, outcome.version, now, this.unresolvedBaseMs));
      await work.recordAssignmentChange({ shipmentId, offerId: "", driverId: "", change: "UNRESOLVED", at: now });
      this.ctx.logger.info({ shipmentId, attempts: plan.job.attempts, timedOut: plan.timedOut }, "no driver took the shipment: dispatch unresolved");
      return {};
    }
    const expiresAt = new Date(now.getTime() + this.ctx.offerTimeoutMs);
    const offer = await work.createOffer({ shipmentId, driverId: plan.driverId, expiresAt });
    // From the planned job: an echo already marked it OFFERED, but this is still its first offer.
    await work.saveJob(offeredTo(plan.job, plan.driverId, outcome.version, now, this.ctx.dispatchTimeoutMs));
    await work.recordAssignmentChange({ shipmentId, offerId: offer.id, driverId: plan.driverId, change: "OFFERED", at: now });
    await work.announceOffer(plan.driverId);
    return { offerExpiresAt: expiresAt };
  }

  /** The best free driver of the job's eligible services, read under the job's lock. */
  async #candidate(work: JobWork, job: DispatchJob): Promise<string | undefined> {
    const services = eligibleServiceIds(this.ctx, job);
    if (services.size === 0) return undefined;
    return this.#choose(job, await work.freeDrivers(job.cityCode, [...services]), services);
  }

  /** Of free drivers (of any service), the best not tried yet (or, for an unresolved job, free again since) of an eligible service. */
  #choose(job: DispatchJob, drivers: readonly Driver[], services = eligibleServiceIds(this.ctx, job)): string | undefined {
    const chosen = chooseDriver(
      drivers.filter((driver) => mayBeOfferedTo(job, driver)).map((driver) => ({ id: driver.id, serviceId: driver.carrierServiceId, position: driver.position })),
      services,
      job.pickup,
    );
    return chosen?.id;
  }
}
