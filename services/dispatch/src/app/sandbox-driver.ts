import type { Coordinate } from "@tawsil/domain";
import { DomainError } from "@tawsil/errors";
import type { Logger } from "@tawsil/logging";
import { moveToward } from "../domain/geo";
import type { DriverApi, LocationReport, Progress } from "./driver-api";
import type { DeliveryProof } from "./ports";

type Phase = "TO_PICKUP" | "AT_PICKUP" | "TO_DESTINATION";

export interface Task {
  readonly shipmentId: string;
  readonly pickup: Coordinate;
  readonly destination: Coordinate;
  phase: Phase;
}

/**
 * What the recipient at the door and the driver's camera provide in the sandbox: the PIN, uploaded
 * evidence (the driver's own media assets) and the COD amount to hand over, for one delivery.
 */
export interface SandboxRecipient {
  proofFor(driverId: string, shipmentId: string): Promise<Omit<DeliveryProof, "driverId">>;
}

export interface SandboxDriverSettings {
  /** Without one, deliveries prove nothing (a shipment requiring proof is then refused). */
  readonly recipient?: SandboxRecipient | undefined;
  readonly driverApi: DriverApi;
  /** The fleet's location reports, batched (LocationBatch): the driver API's ReportLocation. */
  readonly reportLocation: (report: LocationReport) => Promise<void>;
  readonly logger: Logger;
  readonly speedKmh: number;
  readonly failureRate: number;
  readonly tickMs: number;
  readonly acceptDelayMs: number;
  readonly random: () => number;
}

/**
 * One simulated driver, acting only through the driver API as a real driver's app would. It
 * holds a timer only while it has something to do: a short one after an offer arrives (a driver
 * takes a moment to accept), and a movement timer while carrying a shipment, which reports the
 * position every tick and the progress on arrival. An idle driver costs nothing. Movement ticks
 * fall on a grid shared by the whole fleet (multiples of tickMs on the clock), so the drivers on
 * the road report in the same instant and their reports are written together.
 */
export class SandboxDriver {
  #timer: NodeJS.Timeout | undefined;
  #busy: Promise<void> | undefined;
  #stopped = false;
  #lastMove = 0;
  /** An offer announced while a step was running (the step that freed the driver, say). */
  #offerWaiting = false;

  constructor(
    readonly id: string,
    public position: Coordinate,
    private readonly settings: SandboxDriverSettings,
    public task: Task | undefined = undefined,
  ) {}

  /** Starts moving if it resumed with a task. */
  start(): void {
    if (this.task) this.#scheduleMove();
  }

  /** An offer is waiting for this driver: accept it after a moment (unless already busy). */
  offered(): void {
    if (this.#stopped || this.#timer) return;
    if (this.task || this.#busy) {
      this.#offerWaiting = true;
      return;
    }
    this.#offerWaiting = false;
    this.#later(this.settings.acceptDelayMs, () => this.#acceptOffer());
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#busy;
  }

  #later(delayMs: number, step: () => Promise<void>): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#busy = step()
        .catch((err: unknown) => this.settings.logger.warn({ err, driverId: this.id }, "sandbox driver step failed; trying again"))
        .finally(() => {
          this.#busy = undefined;
          if (this.task) this.#scheduleMove();
          else if (this.#offerWaiting) this.offered();
        });
    }, delayMs);
  }

  #scheduleMove(): void {
    if (this.#stopped || this.#timer) return;
    const now = Date.now();
    if (this.#lastMove === 0) this.#lastMove = now;
    // The next grid point; the distance moved is computed from the time that really passed.
    this.#later(this.settings.tickMs - (now % this.settings.tickMs), () => this.#move());
  }

  async #acceptOffer(): Promise<void> {
    const [offer] = await this.settings.driverApi.listOffers({ driverId: this.id });
    if (!offer) return;
    try {
      await this.settings.driverApi.acceptOffer({ driverId: this.id, offerId: offer.offerId });
    } catch (err) {
      if (err instanceof DomainError && err.kind !== "unavailable") return; // lapsed or taken meanwhile
      throw err;
    }
    this.#lastMove = 0;
    this.task = { shipmentId: offer.shipmentId, pickup: offer.pickup, destination: offer.destination, phase: "TO_PICKUP" };
  }

  async #move(): Promise<void> {
    const task = this.task;
    if (!task) return;
    const now = Date.now();
    const metres = (this.settings.speedKmh / 3.6) * ((now - this.#lastMove) / 1000);
    this.#lastMove = now;
    if (task.phase === "AT_PICKUP") {
      await this.#report("OUT_FOR_DELIVERY");
      task.phase = "TO_DESTINATION";
      return;
    }
    const target = task.phase === "TO_PICKUP" ? task.pickup : task.destination;
    const moved = moveToward(this.position, target, metres);
    this.position = moved.position;
    await this.settings.reportLocation({ driverId: this.id, position: moved.position, accuracyMetres: 10, recordTimeMs: BigInt(now) });
    if (!moved.arrived) return;
    if (task.phase === "TO_PICKUP") {
      await this.#report("PICKED_UP");
      task.phase = "AT_PICKUP";
      return;
    }
    const failed = this.settings.random() < this.settings.failureRate;
    await this.#report(failed ? "FAILED" : "DELIVERED", failed ? "RECIPIENT_UNAVAILABLE" : "");
    this.task = undefined;
  }

  /** A step the shipment no longer allows (reported before a restart, or the shipment moved on) is skipped. */
  async #report(progress: Progress, reasonCode = ""): Promise<void> {
    const task = this.task;
    if (!task) return;
    try {
      // Asked at the door, so a restarted driver proves afresh; an upload that fails is retried on the next tick.
      const proof = progress === "DELIVERED" && this.settings.recipient ? await this.settings.recipient.proofFor(this.id, task.shipmentId) : undefined;
      await this.settings.driverApi.reportProgress({ driverId: this.id, shipmentId: task.shipmentId, progress, reasonCode, ...(proof ? { proof } : {}) });
    } catch (err) {
      if (!(err instanceof DomainError) || err.kind === "unavailable") throw err;
      // Expected after a restart (a resumed task replays its steps from the pickup): a line without
      // the error's stack, whose source-mapped formatting cost milliseconds of CPU per refusal.
      this.settings.logger.info({ shipmentId: task.shipmentId, progress, reason: err.message }, "sandbox driver step refused; moving on");
      if (err.reason === "NOT_ASSIGNED") this.task = undefined;
    }
  }
}
