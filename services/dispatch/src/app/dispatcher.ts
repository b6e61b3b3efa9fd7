import { nowOf, type DispatchContext } from "./context";
import { EarliestTimer } from "./earliest-timer";
import { JobStep } from "./job-step";
import type { BacklogOrder, Elect, LeaderRole, Leadership } from "./ports";
import { parseWakeUp, type WakeUp } from "./wake-up";
/** Expired offers handled per wake-up; more are picked up by the next one, queued at once. */
const DUE_BATCH = 100;
/** A wake-up that failed (shipment service down, say) is retried after this, doubling up to 64x. */
const RETRY_BASE_MS = 1_000;
/** Jobs a freed driver looks at before giving way to other work (it is queued again). */
const JOBS_PER_DRIVER_WAKE_UP = 20;

type Work = WakeUp | { readonly kind: "due" } | { readonly kind: "release" } | { readonly kind: "sweep" };

export interface DispatcherOptions {
  /** Runs for the lead among replicas (a session advisory lock in infra/leadership.ts). */
  readonly elect: Elect;
  /** How often the leader re-checks what a lost wake-up could have left behind (constant cost). */
  readonly safetyNetMs: number;
  readonly unresolvedBackoffMs: number;
  /** Which waiting job a freed driver is given first. */
  readonly backlogOrder: BacklogOrder;
}

/**
 * Turns jobs into offers, woken by events rather than by scanning the backlog. One replica leads
 * (a session advisory lock) and LISTENs for wake-ups that any replica sends on commit: a new or
 * refreshed job is tried at once; a driver who becomes free is given the oldest job they can take
 * (the newest in the sandbox: BacklogOrder)
 * (one indexed query, not one per job); lapsed offers are found by one timer armed at the earliest
 * expiry. A job held for its pickup window is released by a second timer, armed at the earliest
 * instant a held job may be offered (no query runs while they wait). Unresolved jobs wait for a
 * freed driver and their back-off. The dispatch deadline needs
 * no timer of its own: it is checked when an offer ends, and an offer always ends by its expiry.
 * Work runs one item at a time, so the leader never races itself; jobs are also row-locked,
 * against the driver API and the consumer on any replica.
 */
export class Dispatcher implements LeaderRole {
  readonly name = "dispatcher";
  readonly #step: JobStep;
  readonly #session: Leadership;
  readonly #pending = new Map<string, Work>();
  readonly #failures = new Map<string, number>();
  readonly #retryTimers = new Set<NodeJS.Timeout>();
  #worker: Promise<void> | undefined;
  readonly #dueTimer: EarliestTimer;
  readonly #releaseTimer: EarliestTimer;
  #safetyNet: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: DispatchContext,
    private readonly opts: DispatcherOptions,
  ) {
    this.#step = new JobStep(ctx, opts.unresolvedBackoffMs);
    this.#session = opts.elect(this, "dispatcher");
    this.#dueTimer = new EarliestTimer(() => this.#enqueue({ kind: "due" }), () => nowOf(ctx));
    this.#releaseTimer = new EarliestTimer(() => this.#enqueue({ kind: "release" }), () => nowOf(ctx));
  }

  get leading(): boolean {
    return this.#session.leading;
  }

  start(): void {
    this.#session.start();
  }

  async close(): Promise<void> {
    await this.#session.close();
  }

  /** Resolves once no wake-up is pending or running (for tests and measurements). */
  async drained(): Promise<void> {
    while (this.#worker) await this.#worker;
  }

  async lead(): Promise<void> {
    this.#safetyNet = setInterval(() => this.#enqueue({ kind: "sweep" }), this.opts.safetyNetMs);
    // Whatever happened while no replica listened: expired offers, lost declines, free drivers.
    this.#enqueue({ kind: "sweep" });
  }

  notified(_channel: string, payload: string): void {
    const wakeUp = parseWakeUp(payload);
    if (wakeUp) this.#enqueue(wakeUp);
  }

  async stepDown(): Promise<void> {
    clearInterval(this.#safetyNet);
    this.#dueTimer.clear();
    this.#releaseTimer.clear();
    for (const timer of this.#retryTimers) clearTimeout(timer);
    this.#retryTimers.clear();
    this.#pending.clear();
    this.#failures.clear();
    await this.drained();
  }

  #enqueue(work: Work): void {
    if (!this.leading) return;
    this.#pending.set(work.kind === "job" || work.kind === "driver" ? `${work.kind}:${work.id}` : work.kind, work);
    this.#kick();
  }

  /** One worker at a time; work queued as it finished starts the next one. */
  #kick(): void {
    if (this.#worker || !this.leading) return;
    // Started on the next tick, so work queued by the first item finds this worker already set.
    this.#worker = Promise.resolve()
      .then(() => this.#drain())
      .finally(() => {
        this.#worker = undefined;
        if (this.#pending.size > 0) this.#kick();
      });
  }

  async #drain(): Promise<void> {
    for (;;) {
      const next = this.#pending.entries().next();
      if (next.done || !this.leading) return;
      const [key, work] = next.value;
      this.#pending.delete(key);
      try {
        const again = await this.#handle(work);
        this.#failures.delete(key);
        if (again) this.#retryLater(key, work);
      } catch (err) {
        this.ctx.logger.warn({ err, work }, "dispatching failed; retrying with back-off");
        this.#retryLater(key, work);
      }
    }
  }

  /** Returns true when the work should be tried again later (with back-off). */
  async #handle(work: Work): Promise<boolean> {
    switch (work.kind) {
      case "job":
        return this.#runJob(work.id);
      case "driver":
        await this.#matchDriver(work.id);
        return false;
      case "due":
        await this.#expireDue();
        return false;
      case "release":
        await this.#releaseHeld();
        return false;
      case "sweep":
        await this.#sweep();
        return false;
    }
  }

  async #runJob(shipmentId: string): Promise<boolean> {
    const outcome = await this.#step.run(shipmentId);
    if (outcome.offerExpiresAt) this.#armDueTimer(outcome.offerExpiresAt);
    if (outcome.heldUntil && this.leading) this.#releaseTimer.arm(outcome.heldUntil);
    return outcome.refreshed === true;
  }

  /** A freed driver: the jobs they could take (oldest or newest first), until one of them is offered to this driver. */
  async #matchDriver(driverId: string): Promise<void> {
    const seen: string[] = [];
    for (let i = 0; i < JOBS_PER_DRIVER_WAKE_UP; i++) {
      const driver = await this.ctx.store.freeDriver(driverId);
      if (!driver) return;
      const service = this.#serviceOf(driver.carrierServiceId, driver.cityCode);
      if (!service) return;
      const shipmentId = await this.ctx.store.nextJobFor(driver, service, nowOf(this.ctx), seen, this.opts.backlogOrder);
      if (!shipmentId) return;
      seen.push(shipmentId);
      // The job goes to its best candidate, perhaps another free driver; this one then looks further.
      await this.#runJob(shipmentId);
    }
    this.#enqueue({ kind: "driver", id: driverId });
  }

  #serviceOf(serviceId: string, cityCode: string) {
    for (const carrier of this.ctx.catalogue.current().carriers) {
      if (!carrier.active) continue;
      const service = carrier.services.find((s) => s.id === serviceId);
      if (service) return service.active && service.cities.has(cityCode) ? service : undefined;
    }
    return undefined;
  }

  async #expireDue(): Promise<void> {
    const due = await this.ctx.store.dueOffers(nowOf(this.ctx), DUE_BATCH);
    for (const shipmentId of due) await this.#runJob(shipmentId);
    if (due.length === DUE_BATCH) this.#enqueue({ kind: "due" });
    const next = await this.ctx.store.nextOfferExpiry();
    if (next) this.#armDueTimer(next);
  }

  /** The timer fires at the earliest known expiry; an offer accepted meanwhile makes it fire for nothing, once. */
  #armDueTimer(at: Date): void {
    if (this.leading) this.#dueTimer.arm(at);
  }

  /** Held jobs whose time came are released (no longer held) and tried; the timer then waits for the next one. */
  async #releaseHeld(): Promise<void> {
    const released = await this.ctx.store.releaseHeldJobs(nowOf(this.ctx), DUE_BATCH);
    for (const shipmentId of released) await this.#runJob(shipmentId);
    if (released.length === DUE_BATCH) this.#enqueue({ kind: "release" });
    const next = await this.ctx.store.nextHeldRelease();
    if (next && this.leading) this.#releaseTimer.arm(next);
  }

  /** What a lost wake-up could leave behind; each query is bounded by drivers, not by jobs. */
  async #sweep(): Promise<void> {
    this.#enqueue({ kind: "due" });
    this.#enqueue({ kind: "release" });
    for (const shipmentId of await this.ctx.store.offeredJobsWithoutOffer()) this.#enqueue({ kind: "job", id: shipmentId });
    for (const driverId of await this.ctx.store.freeDriverIds()) this.#enqueue({ kind: "driver", id: driverId });
  }

  #retryLater(key: string, work: Work): void {
    const failures = (this.#failures.get(key) ?? 0) + 1;
    this.#failures.set(key, failures);
    const timer = setTimeout(() => {
      this.#retryTimers.delete(timer);
      this.#enqueue(work);
    }, Math.min(RETRY_BASE_MS * 2 ** (failures - 1), RETRY_BASE_MS * 64));
    this.#retryTimers.add(timer);
  }
}
