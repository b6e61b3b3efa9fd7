import { chooseDriver } from "../domain/driver-choice";
import { writeAssignmentChanged } from "../infra/events";
import type { DispatchJob } from "../infra/prisma/generated/client";
import type { StepOutcome } from "../infra/shipment-client";
import { eligibleServiceIds, inTransaction, lockJob, nowOf, refreshJob, type DispatchContext, type Tx } from "./context";

/** Any constant unique within dispatch's database (the outbox relay uses 0x7a777301). */
const DISPATCHER_LOCK = 0x7a_77_73_10;
const ACTIVE_STATES = ["WAITING", "OFFERED", "UNRESOLVED"] as const;

/**
 * Turns jobs into offers. Every `intervalMs`, the one replica holding the dispatcher's advisory
 * lock goes through the active jobs: it expires lapsed offers, offers waiting shipments to the
 * nearest eligible available driver (reserving the shipment through the shipment service first:
 * a shipment the service refuses, a cancelled one above all, is never offered), re-offers to the
 * next candidate, and gives up (DISPATCH_UNRESOLVED) when no candidate is left or the dispatch
 * timeout passed. Unresolved jobs are retried with drivers who became available since.
 */
export class Dispatcher {
  readonly name = "dispatcher";
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(
    private readonly ctx: DispatchContext,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.#schedule();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** One round; returns false when another replica leads. */
  async tick(): Promise<boolean> {
    return inTransaction(this.ctx, async (leader) => {
      const [lock] = await leader.$queryRawUnsafe<{ locked: boolean }[]>(`SELECT pg_try_advisory_xact_lock(${DISPATCHER_LOCK}) AS locked`);
      if (!lock?.locked) return false;
      const jobs = await this.ctx.db.dispatchJob.findMany({
        where: { state: { in: [...ACTIVE_STATES] } },
        select: { shipmentId: true },
        orderBy: { createdAt: "asc" },
        take: 500,
      });
      for (const { shipmentId } of jobs) {
        if (this.#closed) break;
        await this.processJob(shipmentId).catch((err: unknown) => this.ctx.logger.warn({ err, shipmentId }, "dispatching a shipment failed; retrying next round"));
      }
      return true;
    }).catch((err: unknown) => {
      this.ctx.logger.warn({ err }, "dispatcher round failed");
      return false;
    });
  }

  /** Moves one job on, under its row lock. */
  async processJob(shipmentId: string): Promise<void> {
    await inTransaction(this.ctx, async (tx) => {
      const job = await lockJob(tx, shipmentId);
      if (!job) return;
      const now = nowOf(this.ctx);
      if (job.state === "OFFERED") {
        const open = await tx.offer.findFirst({ where: { shipmentId, state: "OPEN" } });
        if (open) {
          if (open.expiresAt > now) return;
          await tx.offer.update({ where: { id: open.id }, data: { state: "EXPIRED" } });
          await writeAssignmentChanged(tx, { shipmentId, offerId: open.id, driverId: open.driverId, change: "EXPIRED", at: now });
        }
        await this.#offerNext(tx, job, now);
      } else if (job.state === "WAITING" || job.state === "UNRESOLVED") {
        await this.#reserve(tx, job, now);
      }
    });
  }

  /** The best available driver not tried yet (or, for an unresolved job, available again since). */
  async #candidate(tx: Tx, job: DispatchJob): Promise<string | undefined> {
    const services = eligibleServiceIds(this.ctx, job);
    if (services.size === 0) return undefined;
    const drivers = await tx.driver.findMany({
      where: {
        cityCode: job.cityCode,
        available: true,
        currentShipmentId: null,
        carrierServiceId: { in: [...services] },
        offers: { none: { state: "OPEN" } },
      },
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
  async #reserve(tx: Tx, job: DispatchJob, now: Date): Promise<void> {
    const driverId = await this.#candidate(tx, job);
    if (!driverId) return;
    const reserved = await this.ctx.shipments.reserveForOffer(job.shipmentId, job.shipmentVersion);
    if (!reserved.ok) {
      this.ctx.logger.info({ shipmentId: job.shipmentId, reason: reserved.reason }, "reservation refused; refreshing the job");
      await refreshJob(this.ctx, tx, job);
      return;
    }
    const retry = job.state === "UNRESOLVED";
    await this.#createOffer(tx, job, driverId, reserved, now, {
      triedDriverIds: retry ? [driverId] : [...job.triedDriverIds, driverId],
      deadline: retry || job.deadline === null ? new Date(now.getTime() + this.ctx.dispatchTimeoutMs) : job.deadline,
    });
  }

  /** An offered job without an open offer: the next candidate, or unresolved. */
  async #offerNext(tx: Tx, job: DispatchJob, now: Date): Promise<void> {
    const timedOut = job.deadline !== null && job.deadline <= now;
    const driverId = timedOut ? undefined : await this.#candidate(tx, job);
    if (!driverId) {
      const step = await this.ctx.shipments.applyStep(job.shipmentId, "UNRESOLVED", job.shipmentVersion);
      if (!step.ok) {
        await refreshJob(this.ctx, tx, job);
        return;
      }
      await tx.dispatchJob.update({ where: { shipmentId: job.shipmentId }, data: { state: "UNRESOLVED", shipmentVersion: step.version, deadline: now } });
      await writeAssignmentChanged(tx, { shipmentId: job.shipmentId, offerId: "", driverId: "", change: "UNRESOLVED", at: now });
      this.ctx.logger.info({ shipmentId: job.shipmentId, attempts: job.attempts, timedOut }, "no driver took the shipment: dispatch unresolved");
      return;
    }
    const step = await this.ctx.shipments.applyStep(job.shipmentId, "REOFFER", job.shipmentVersion);
    if (!step.ok) {
      await refreshJob(this.ctx, tx, job);
      return;
    }
    await this.#createOffer(tx, job, driverId, step, now, { triedDriverIds: [...job.triedDriverIds, driverId], deadline: job.deadline });
  }

  async #createOffer(
    tx: Tx,
    job: DispatchJob,
    driverId: string,
    step: StepOutcome & { ok: true },
    now: Date,
    data: { triedDriverIds: string[]; deadline: Date | null },
  ): Promise<void> {
    const offer = await tx.offer.create({
      data: { shipmentId: job.shipmentId, driverId, state: "OPEN", expiresAt: new Date(now.getTime() + this.ctx.offerTimeoutMs) },
    });
    await tx.dispatchJob.update({
      where: { shipmentId: job.shipmentId },
      data: { state: "OFFERED", shipmentVersion: step.version, attempts: { increment: 1 }, ...data },
    });
    await writeAssignmentChanged(tx, { shipmentId: job.shipmentId, offerId: offer.id, driverId, change: "OFFERED", at: now });
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#running = this.tick()
        .then(() => undefined)
        .finally(() => this.#schedule());
    }, this.intervalMs);
  }
}
