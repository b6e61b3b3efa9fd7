import { randomUUID } from "node:crypto";
import type { Coordinate } from "@tawsil/domain";
import type { Logger } from "@tawsil/logging";
import { moveToward } from "../domain/geo";
import { proofOf } from "./proof";
import { RefusedError, type Clock, type Delivery, type DriverApp, type Fix, type FleetDriverAccount, type Step } from "./ports";

/** The longest long poll the driver routes hold (GET /v2/driver/offers?waitSeconds=20). */
export const OFFER_WAIT_SECONDS = 20;
/** Fixes in one POST /v2/driver/locations (decisions.md section 17). */
const MAX_FIXES = 100;
/** After an outage, how long a driver waits before it tries again. */
const OUTAGE_PAUSE_MS = 1_000;

type Phase = "TO_PICKUP" | "AT_PICKUP" | "TO_DESTINATION";

interface Task extends Delivery {
  phase: Phase;
  /** One Idempotency-Key per step across its retries, so a step answered but lost is not done twice. */
  readonly keys: Map<string, string>;
  /** Gathered once: a DELIVERED retried after an outage sends the same proof, not new uploads. */
  proof?: Step;
}

export interface FleetDriverSettings {
  readonly speedKmh: number;
  readonly failureRate: number;
  readonly tickMs: number;
  readonly fixIntervalMs: number;
  readonly acceptDelayMs: number;
  readonly random: () => number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The PIN the recipient tells the driver at the door. */
  readonly deliveryPin: (shipmentId: string) => Promise<string>;
  /** Called whenever the driver becomes busy or free. */
  readonly busyChanged: () => void;
  /**
   * A reserve driver (beyond the pair's cap, called for a new shipment): it ends its shift as its
   * one delivery ends, then calls shiftEnded. Dispatch declines an offer made to it meanwhile.
   */
  readonly reserve: boolean;
  readonly shiftEnded: () => void;
  readonly finished: (outcome: "DELIVERED" | "DELIVERY_FAILED") => void;
}

/**
 * One simulated driver, doing over HTTP what a driver's app does (decisions.md section 17). Idle on
 * shift, it keeps one long poll for offers outstanding; offered a shipment, it accepts after a
 * moment, drives in a straight line at a compressed speed to the pickup and on to the destination,
 * buffering a fix every tick and posting them together, reports each step, and proves the delivery
 * (or fails a share of them). A refusal drops the job; an outage is retried on the next tick.
 */
export class FleetDriver {
  onShift = false;
  idleSinceMs: number;
  #jobs: Delivery[] = [];
  #task: Task | undefined;
  #accepting = false;
  #fixes: Fix[] = [];
  #lastFlushMs = 0;
  #lastMoveMs = 0;
  #stop = new AbortController();
  #loop: Promise<void> | undefined;
  /** A reserve driver's one job taken: its shift ends once it is done. */
  #tookJob = false;

  constructor(
    readonly account: FleetDriverAccount,
    public position: Coordinate,
    private readonly app: DriverApp,
    private readonly s: FleetDriverSettings,
  ) {
    this.idleSinceMs = s.clock.now();
  }

  get reserve(): boolean {
    return this.s.reserve;
  }

  get driverId(): string {
    return this.account.driverId;
  }

  get busy(): boolean {
    return this.#accepting || this.#task !== undefined || this.#jobs.length > 0;
  }

  /** Comes on shift, picks up the jobs it carried before a restart, and starts its loop. */
  async start(): Promise<void> {
    await this.app.setOnShift(true, this.position);
    this.onShift = true;
    this.idleSinceMs = this.s.clock.now();
    this.#jobs = await this.app.jobs();
    this.#loop = this.#run(this.#stop.signal);
  }

  /** Ends its loop (and an outstanding long poll); `offShift` also takes it off shift. */
  async stop(offShift: boolean): Promise<void> {
    this.#stop.abort();
    await this.#loop;
    if (offShift && this.onShift) await this.app.setOnShift(false, this.position);
    this.onShift = false;
  }

  async #run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        const job = this.#jobs.shift();
        if (job) {
          this.#tookJob = true;
          await this.#drive(job, signal);
        } else if (this.s.reserve && this.#tookJob) return await this.#endShift();
        else await this.#waitForOffer(signal);
      } catch (err) {
        if (signal.aborted) return;
        this.s.logger.warn({ err, driverId: this.driverId }, "sandbox driver: the mesh did not answer; trying again");
        await this.s.clock.sleep(OUTAGE_PAUSE_MS, signal);
      }
    }
  }

  /** A reserve driver's delivery is done: off shift (an outage retries it from the loop). */
  async #endShift(): Promise<void> {
    await this.app.setOnShift(false, this.position);
    this.onShift = false;
    this.s.shiftEnded();
  }

  async #waitForOffer(signal: AbortSignal): Promise<void> {
    const askedMs = this.s.clock.now();
    const [offer] = await this.app.offers(OFFER_WAIT_SECONDS, signal);
    if (!offer) {
      // A gateway that answers at once (no long poll) must not make the driver spin.
      const remaining = OFFER_WAIT_SECONDS * 1000 - (this.s.clock.now() - askedMs);
      if (remaining > 0) await this.s.clock.sleep(remaining, signal);
      return;
    }
    this.#setAccepting(true);
    try {
      await this.s.clock.sleep(this.s.acceptDelayMs, signal);
      if (signal.aborted) return;
      await this.app.accept(offer.offerId);
      this.#jobs.push(offer);
    } catch (err) {
      if (!(err instanceof RefusedError)) throw err;
      this.s.logger.info({ driverId: this.driverId, shipmentId: offer.shipmentId, refusal: err.message }, "sandbox driver: offer no longer open");
    } finally {
      this.#setAccepting(false);
    }
  }

  #setAccepting(accepting: boolean): void {
    this.#accepting = accepting;
    if (!this.busy) this.idleSinceMs = this.s.clock.now();
    this.s.busyChanged();
  }

  async #drive(job: Delivery, signal: AbortSignal): Promise<void> {
    this.#task = { ...job, phase: "TO_PICKUP", keys: new Map() };
    this.#lastMoveMs = this.s.clock.now();
    while (this.#task && !signal.aborted) {
      const now = this.s.clock.now();
      // Ticks on a grid shared by the whole fleet; the distance moved is from the time that really passed.
      await this.s.clock.sleep(this.s.tickMs - (now % this.s.tickMs), signal);
      if (signal.aborted) return;
      try {
        await this.#advance(this.#task);
      } catch (err) {
        if (!(err instanceof RefusedError)) {
          this.s.logger.warn({ err, driverId: this.driverId, shipmentId: this.#task.shipmentId }, "sandbox driver: the mesh did not answer; retrying on the next tick");
          continue;
        }
        // The shipment was cancelled or moved on: a line without a stack, as nothing is wrong.
        this.s.logger.info({ driverId: this.driverId, shipmentId: this.#task.shipmentId, refusal: err.message }, "sandbox driver: job refused; dropping it");
        this.#task = undefined;
      }
    }
    if (!this.busy) this.idleSinceMs = this.s.clock.now();
    this.s.busyChanged();
  }

  async #advance(task: Task): Promise<void> {
    const now = this.s.clock.now();
    const metres = (this.s.speedKmh / 3.6) * ((now - this.#lastMoveMs) / 1000);
    this.#lastMoveMs = now;
    if (task.phase === "AT_PICKUP") {
      await this.#progress(task, "OUT_FOR_DELIVERY");
      task.phase = "TO_DESTINATION";
      return;
    }
    const moved = moveToward(this.position, task.phase === "TO_PICKUP" ? task.pickup : task.destination, metres);
    this.position = moved.position;
    this.#fixes.push({ position: moved.position, recordedAtMs: now });
    if (this.#fixes.length > MAX_FIXES) this.#fixes.shift();
    // On arrival at once, so the position at the door is recorded before the step.
    if (moved.arrived || now - this.#lastFlushMs >= this.s.fixIntervalMs) await this.#flushFixes(now);
    if (!moved.arrived) return;
    if (task.phase === "TO_PICKUP") {
      await this.#progress(task, "PICKED_UP");
      task.phase = "AT_PICKUP";
      return;
    }
    task.proof ??= this.s.random() < this.s.failureRate ? { step: "DELIVERY_FAILED", reasonCode: "RECIPIENT_UNAVAILABLE" } : { step: "DELIVERED", proof: await proofOf(task, this.app, this.s.deliveryPin) };
    await this.app.reportStep(task.shipmentId, task.proof, this.#keyOf(task, task.proof.step));
    this.#task = undefined;
    this.s.finished(task.proof.step === "DELIVERED" ? "DELIVERED" : "DELIVERY_FAILED");
  }

  /** A progress step refused as out of order was done before a restart (a resumed job replays from the pickup): go on. */
  async #progress(task: Task, step: "PICKED_UP" | "OUT_FOR_DELIVERY"): Promise<void> {
    try {
      await this.app.reportStep(task.shipmentId, { step }, this.#keyOf(task, step));
    } catch (err) {
      if (!(err instanceof RefusedError) || err.status !== 409) throw err;
      this.s.logger.info({ driverId: this.driverId, shipmentId: task.shipmentId, step, refusal: err.message }, "sandbox driver: step already past; moving on");
    }
  }

  async #flushFixes(now: number): Promise<void> {
    if (this.#fixes.length === 0) return;
    const batch = this.#fixes.splice(0, MAX_FIXES);
    try {
      await this.app.reportFixes(batch);
    } catch (err) {
      if (!(err instanceof RefusedError)) {
        // After an outage they go with the next ones, the newest kept.
        this.#fixes = [...batch, ...this.#fixes].slice(-MAX_FIXES);
        throw err;
      }
      // Refused fixes are dropped: the next ones will do, and the job goes on.
      this.s.logger.info({ driverId: this.driverId, refusal: err.message }, "sandbox driver: fixes refused; dropped");
    }
    this.#lastFlushMs = now;
  }

  #keyOf(task: Task, step: string): string {
    let key = task.keys.get(step);
    if (!key) task.keys.set(step, (key = randomUUID()));
    return key;
  }
}
