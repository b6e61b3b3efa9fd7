import { chooseDriver } from "../domain/driver-choice";
import { writeAssignmentChanged } from "../infra/events";
import type { DispatchJob } from "../infra/prisma/generated/client";
import type { StepOutcome } from "../infra/shipment-client";
import { announceOffer, wakeForDriver } from "../infra/wake-ups";
import { eligibleServiceIds, inTransaction, lockJob, nowOf, refreshJob, type DispatchContext, type Tx } from "./context";

/** What one step of a job came to, for the dispatcher's timers and retries. */
export interface JobStepOutcome {
  /** An offer was made: the dispatcher's due-time timer must fire by then. */
  readonly offerExpiresAt?: Date;
  /** The shipment service refused a step and the job was refreshed: try again later, not at once. */
  readonly refreshed?: boolean;
}

/** The wait before a freed driver may retry a job that went unresolved `count` times: none the first time, then doubling. */
export function unresolvedBackoffMs(count: number, baseMs: number): number {
  return count <= 1 ? 0 : Math.min(baseMs * 2 ** (count - 2), baseMs * 64);
}

/**
 * Moves one job on, under its row lock: expires its lapsed offer, offers a waiting job to the
 * nearest eligible free driver (reserving the shipment through the shipment service first: a
 * shipment the service refuses, a cancelled one above all, is never offered), re-offers to the
 * next candidate, and gives up (DISPATCH_UNRESOLVED) when no candidate is left or the dispatch
 * timeout passed. Unresolved jobs are retried with drivers who became free since.
 */
export class JobStep {
  constructor(
    private readonly ctx: DispatchContext,
    private readonly unresolvedBaseMs: number,
  ) {}

  async run(shipmentId: string): Promise<JobStepOutcome> {
    return inTransaction(this.ctx, async (tx) => {
      const job = await lockJob(tx, shipmentId);
      if (!job) return {};
      const now = nowOf(this.ctx);
      if (job.state === "OFFERED") {
        const open = await tx.offer.findFirst({ where: { shipmentId, state: "OPEN" } });
        if (open) {
          if (open.expiresAt > now) return {};
          await tx.offer.update({ where: { id: open.id }, data: { state: "EXPIRED" } });
          await writeAssignmentChanged(tx, { shipmentId, offerId: open.id, driverId: open.driverId, change: "EXPIRED", at: now });
          // The lapsed offer no longer holds the driver back from other jobs.
          await wakeForDriver(tx, open.driverId);
        }
        return this.#offerNext(tx, job, now);
      }
      if (job.state === "WAITING" || job.state === "UNRESOLVED") return this.#reserve(tx, job, now);
      return {};
    });
  }

  /** The best free driver not tried yet (or, for an unresolved job, free again since). */
  async #candidate(tx: Tx, job: DispatchJob): Promise<string | undefined> {
    const services = eligibleServiceIds(this.ctx, job);
    if (services.size === 0) return undefined;
    const drivers = await tx.driver.findMany({
      where: { cityCode: job.cityCode, available: true, currentShipmentId: null, carrierServiceId: { in: [...services] }, offers: { none: { state: "OPEN" } } },
    });
    const tried = new Set(job.triedDriverIds);
    const fresh = drivers.filter((driver) =>
      job.state === "UNRESOLVED"
        ? !tried.has(driver.id) || (driver.availableSince !== null && job.deadline !== null && driver.availableSince > job.deadline)
        : !tried.has(driver.id),
    );
    const pickup = { latitudeMicro: job.pickupLatitudeMicro, longitudeMicro: job.pickupLongitudeMicro };
    const chosen = chooseDriver(
      fresh.map((driver) => ({
        id: driver.id,
        serviceId: driver.carrierServiceId,
        position: driver.latitudeMicro === null || driver.longitudeMicro === null ? undefined : { latitudeMicro: driver.latitudeMicro, longitudeMicro: driver.longitudeMicro },
      })),
      services,
      pickup,
    );
    return chosen?.id;
  }

  /** A waiting or unresolved job: reserve the shipment for the first offer. */
  async #reserve(tx: Tx, job: DispatchJob, now: Date): Promise<JobStepOutcome> {
    if (job.state === "UNRESOLVED" && job.retryAt !== null && job.retryAt > now) return {};
    const driverId = await this.#candidate(tx, job);
    if (!driverId) return {};
    const reserved = await this.ctx.shipments.reserveForOffer(job.shipmentId, job.shipmentVersion);
    if (!reserved.ok) {
      this.ctx.logger.info({ shipmentId: job.shipmentId, reason: reserved.reason }, "reservation refused; refreshing the job");
      await refreshJob(this.ctx, tx, job);
      return { refreshed: true };
    }
    const retry = job.state === "UNRESOLVED";
    return this.#createOffer(tx, job, driverId, reserved, now, {
      triedDriverIds: retry ? [driverId] : [...job.triedDriverIds, driverId],
      deadline: retry || job.deadline === null ? new Date(now.getTime() + this.ctx.dispatchTimeoutMs) : job.deadline,
    });
  }

  /** An offered job without an open offer: the next candidate, or unresolved. */
  async #offerNext(tx: Tx, job: DispatchJob, now: Date): Promise<JobStepOutcome> {
    const timedOut = job.deadline !== null && job.deadline <= now;
    const driverId = timedOut ? undefined : await this.#candidate(tx, job);
    if (!driverId) {
      const step = await this.ctx.shipments.applyStep(job.shipmentId, "UNRESOLVED", job.shipmentVersion);
      if (!step.ok) {
        await refreshJob(this.ctx, tx, job);
        return { refreshed: true };
      }
      const unresolvedCount = job.unresolvedCount + 1;
      const retryAt = new Date(now.getTime() + unresolvedBackoffMs(unresolvedCount, this.unresolvedBaseMs));
      await tx.dispatchJob.update({ where: { shipmentId: job.shipmentId }, data: { state: "UNRESOLVED", shipmentVersion: step.version, deadline: now, unresolvedCount, retryAt } });
      await writeAssignmentChanged(tx, { shipmentId: job.shipmentId, offerId: "", driverId: "", change: "UNRESOLVED", at: now });
      this.ctx.logger.info({ shipmentId: job.shipmentId, attempts: job.attempts, timedOut }, "no driver took the shipment: dispatch unresolved");
      return {};
    }
    const step = await this.ctx.shipments.applyStep(job.shipmentId, "REOFFER", job.shipmentVersion);
    if (!step.ok) {
      await refreshJob(this.ctx, tx, job);
      return { refreshed: true };
    }
    return this.#createOffer(tx, job, driverId, step, now, { triedDriverIds: [...job.triedDriverIds, driverId], deadline: job.deadline });
  }

  async #createOffer(
    tx: Tx,
    job: DispatchJob,
    driverId: string,
    step: StepOutcome & { ok: true },
    now: Date,
    data: { triedDriverIds: string[]; deadline: Date | null },
  ): Promise<JobStepOutcome> {
    const expiresAt = new Date(now.getTime() + this.ctx.offerTimeoutMs);
    const offer = await tx.offer.create({ data: { shipmentId: job.shipmentId, driverId, state: "OPEN", expiresAt } });
    await tx.dispatchJob.update({
      where: { shipmentId: job.shipmentId },
      data: { state: "OFFERED", shipmentVersion: step.version, attempts: { increment: 1 }, ...data },
    });
    await writeAssignmentChanged(tx, { shipmentId: job.shipmentId, offerId: offer.id, driverId, change: "OFFERED", at: now });
    await announceOffer(tx, driverId);
    return { offerExpiresAt: expiresAt };
  }
}
