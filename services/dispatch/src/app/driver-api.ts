import { isUuid, parseCoordinate, type Coordinate } from "@tawsil/domain";
import { FailedPreconditionError, ValidationError } from "@tawsil/errors";
import { progressed } from "../domain/dispatch-job";
import { finishes, STEP_OF_PROGRESS, type Progress } from "../domain/driver";
import { driverNotFound, notAssigned, offerNotFound, offerNotOpen, stepNotAllowed } from "../domain/errors";
import { isOpenAt } from "../domain/offer";
import { nowOf, type DispatchContext } from "./context";
import { acceptOffer } from "./accept-offer";
import { MAX_OFFER_WAIT_MS, type OfferWaiters } from "./offer-waiters";
import { oncePerKey, type StepKeyStore } from "./step-keys";
import type { CurrentJob, DeliveryProof, OpenOffer } from "./ports";

export type { CurrentJob, OpenOffer, Progress };

/** The most fixes one call may carry (decisions.md section 17). */
export const MAX_FIXES_PER_BATCH = 100;

/** A step a driver reports on its job, with the proof a delivery needs (decisions.md section 17). */
export interface ProgressReport {
  readonly driverId: string;
  readonly shipmentId: string;
  readonly progress: Progress;
  readonly reasonCode: string;
  readonly proof?: Omit<DeliveryProof, "driverId">;
}

/** Where a driver is, as their app reports it (recordTimeMs 0: now). */
export interface LocationReport {
  readonly driverId: string;
  readonly position: Coordinate | undefined;
  readonly accuracyMetres: number;
  readonly recordTimeMs: bigint;
}

const REASON_CODE = /^[A-Z][A-Z0-9_]{1,47}$/;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{16,128}$/;
const FINGERPRINT = /^[0-9a-f]{64}$/;

function id(field: string, value: string): string {
  if (!isUuid(value)) throw new ValidationError(field, "must be a uuid");
  return value.toLowerCase();
}

/** What a driver (their app, or the sandbox fleet) does. Every shipment step goes through the shipment service. */
export class DriverApi {
  constructor(
    private readonly ctx: DispatchContext,
    /** This replica's active driver index, reloaded after a shift change commits. */
    private readonly activeDrivers?: { refresh(): Promise<void> },
    /** Records of steps sent with an Idempotency-Key (the driver routes always send one). */
    private readonly stepKeys?: StepKeyStore,
    /** Long polls for offers, woken by offers' notifications; without it a call never waits. */
    private readonly offerWaiters?: OfferWaiters,
  ) {}

  async setAvailability(input: { driverId: string; available: boolean; position?: Coordinate | undefined }): Promise<void> {
    const driverId = id("driver_id", input.driverId);
    const position = input.position ? parseCoordinate("position", input.position) : undefined;
    const shiftChanged = await this.ctx.store.transaction(async (work) => {
      const driver = await work.driver(driverId);
      if (!driver) throw driverNotFound();
      const now = nowOf(this.ctx);
      await work.updateDriver(driverId, {
        available: input.available,
        ...(input.available && !driver.available ? { availableSince: now } : {}),
        ...(position ? { position, positionAt: now } : {}),
      });
      // On duty and carrying nothing: the dispatcher's leader looks for a job for them.
      if (input.available && !driver.currentShipmentId) await work.wakeForDriver(driverId);
      // Eligibility needs a driver on shift: every replica's index learns of it on commit.
      if (input.available !== driver.available) await work.announceShiftChange();
      return input.available !== driver.available;
    });
    // Before answering, so this replica's next eligibility answer already counts the driver. The
    // change has committed either way: a failed reload is the index's to retry, not the caller's error.
    if (shiftChanged) await this.activeDrivers?.refresh().catch((err: unknown) => this.ctx.logger.warn({ err }, "active driver index reload failed after a shift change"));
    // Off shift, no new offer comes; one already made is declined now, so its job goes to the next
    // driver at once instead of waiting out the offer (a driver who ends a shift as a delivery ends).
    if (!input.available) await this.#declineOpenOffers(driverId);
  }

  async #declineOpenOffers(driverId: string): Promise<void> {
    for (const offer of (await this.ctx.store.openOffersOf(driverId, nowOf(this.ctx))) ?? []) {
      await this.declineOffer({ driverId, offerId: offer.offerId }).catch((err: unknown) => {
        // Accepted or expired meanwhile: nothing is left to decline.
        if (!(err instanceof FailedPreconditionError && err.reason === "OFFER_NOT_OPEN")) throw err;
      });
    }
  }

  /**
   * The driver's open offers. With `waitMs` and none open, the call is held until an offer is made
   * for the driver or the wait passes (a long poll: an app learns of an offer at once, and an idle
   * driver costs one held call instead of a query every second). The waiter is in place before
   * each read, so an offer committed between the read and the wait still wakes it. A wait that
   * ends without a notification answers no offers without reading again: an offer whose
   * notification was still on its way is in the app's next call's first read, as it would have
   * been had it committed a moment later (an idle driver's poll is one statement, not three).
   */
  async listOffers(input: { driverId: string; waitMs?: number; signal?: AbortSignal }): Promise<OpenOffer[]> {
    const driverId = id("driver_id", input.driverId);
    const waitMs = input.waitMs ?? 0;
    if (!Number.isInteger(waitMs) || waitMs < 0 || waitMs > MAX_OFFER_WAIT_MS) throw new ValidationError("wait_ms", `must be from 0 to ${MAX_OFFER_WAIT_MS}`);
    const until = Date.now() + waitMs;
    for (;;) {
      const left = until - Date.now();
      const waiter = left > 0 && !input.signal?.aborted ? this.offerWaiters?.wait(driverId, left, input.signal) : undefined;
      const offers = await this.ctx.store.openOffersOf(driverId, nowOf(this.ctx)).catch((error: unknown) => {
        waiter?.cancel();
        throw error;
      });
      if (offers === undefined) {
        waiter?.cancel();
        throw driverNotFound();
      }
      if (offers.length > 0 || !waiter) {
        waiter?.cancel();
        return offers;
      }
      // The wait passed (or the caller left) with no notification: no offer was made since the read.
      if (!(await waiter.woken)) return [];
    }
  }

  /** The shipment the driver carries now (none, or one). */
  async listJobs(input: { driverId: string }): Promise<CurrentJob[]> {
    const jobs = await this.ctx.store.currentJobsOf(id("driver_id", input.driverId));
    if (jobs === undefined) throw driverNotFound();
    return jobs;
  }

  /** One driver's fixes, oldest first, recorded all or none. */
  async reportDriverFixes(input: { driverId: string; fixes: readonly Omit<LocationReport, "driverId">[] }): Promise<void> {
    if (input.fixes.length === 0) throw new ValidationError("fixes", "must hold at least one fix");
    if (input.fixes.length > MAX_FIXES_PER_BATCH) throw new ValidationError("fixes", `must hold at most ${MAX_FIXES_PER_BATCH} fixes`);
    await this.reportLocations(input.fixes.map((fix) => ({ ...fix, driverId: input.driverId })));
  }

  /** An open, unexpired offer becomes the driver's shipment (ACCEPTED at the shipment service). */
  async acceptOffer(input: { driverId: string; offerId: string }): Promise<void> {
    await acceptOffer(this.ctx, await this.#offerParties(input), id("offer_id", input.offerId));
  }

  /** An open offer is declined; on commit the dispatcher offers the next candidate, and may give the driver another job. */
  async declineOffer(input: { driverId: string; offerId: string }): Promise<void> {
    const offerId = id("offer_id", input.offerId);
    const parties = await this.#offerParties(input);
    await this.ctx.store.transaction(async (work) => {
      await work.lockJob(parties.shipmentId);
      const offer = await work.offer(offerId);
      const now = nowOf(this.ctx);
      if (!offer || !isOpenAt(offer, now)) throw offerNotOpen();
      await work.setOfferState(offer.id, "DECLINED");
      await work.recordAssignmentChange({ shipmentId: offer.shipmentId, offerId: offer.id, driverId: offer.driverId, change: "DECLINED", at: now });
      await work.wakeForJob(offer.shipmentId);
      await work.wakeForDriver(offer.driverId);
    });
  }

  /**
   * A progress step of the driver's shipment: checked under the job's lock, asked of the shipment
   * service with no transaction open, recorded under the lock again. The shipment service's state
   * machine refuses a step out of order, so two reports racing cannot both land.
   */
  async reportProgress(input: ProgressReport & { idempotency?: { key: string; fingerprint: string } | undefined }): Promise<void> {
    const { idempotency } = input;
    if (!idempotency) return this.#reportProgress(input);
    if (!this.stepKeys) throw new Error("DriverApi was built without its step key store");
    if (!IDEMPOTENCY_KEY.test(idempotency.key)) throw new ValidationError("idempotency_key", "must be 16 to 128 visible ASCII characters");
    if (!FINGERPRINT.test(idempotency.fingerprint)) throw new ValidationError("request_fingerprint", "must be a SHA-256 in hex");
    await oncePerKey(this.stepKeys, { driverId: id("driver_id", input.driverId), ...idempotency }, () => this.#reportProgress(input));
  }

  async #reportProgress(input: ProgressReport): Promise<void> {
    const driverId = id("driver_id", input.driverId);
    const shipmentId = id("shipment_id", input.shipmentId);
    if (input.progress === "FAILED" && !REASON_CODE.test(input.reasonCode)) throw new ValidationError("reason_code", "is required with PROGRESS_FAILED, pattern ^[A-Z][A-Z0-9_]{1,47}$");
    await this.ctx.store.transaction(async (work) => {
      const job = await work.lockJob(shipmentId);
      const driver = await work.driver(driverId);
      if (!driver) throw driverNotFound();
      if (!job || driver.currentShipmentId !== shipmentId) throw notAssigned();
    });
    // The proof is the shipment service's to judge, under its row lock (decisions.md section 17).
    const proof = input.progress === "DELIVERED" ? { driverId, deliveryPin: "", evidenceMediaAssetIds: [], codCollected: null, ...input.proof } : undefined;
    const step = await this.ctx.shipments.applyStep(shipmentId, STEP_OF_PROGRESS[input.progress], 0n, input.progress === "FAILED" ? input.reasonCode : "", proof);
    if (!step.ok) throw stepNotAllowed();
    const finished = finishes(input.progress);
    const saved = await this.ctx.store.transaction(async (work) => {
      const job = await work.lockJob(shipmentId);
      if (job) await work.saveJob(progressed(job, step.version, finished));
      // A driver who finishes is free again: unresolved jobs may now be retried with them.
      if (finished) {
        await work.updateDriver(driverId, { currentShipmentId: null, availableSince: nowOf(this.ctx) });
        await work.wakeForDriver(driverId);
      }
      return job !== undefined;
    });
    if (saved) this.ctx.echoes?.awaited(shipmentId, step.version);
  }

  /** Reports in one transaction, all or none: each costs its statements, not a transaction and a relay round. */
  private async reportLocations(inputs: readonly LocationReport[]): Promise<void> {
    const fixes = inputs.map((input) => {
      if (input.accuracyMetres < 0) throw new ValidationError("accuracy_metres", "must not be negative");
      return {
        driverId: id("driver_id", input.driverId),
        position: parseCoordinate("position", input.position),
        accuracyMetres: input.accuracyMetres,
        recordedAt: input.recordTimeMs > 0n ? new Date(Number(input.recordTimeMs)) : nowOf(this.ctx),
      };
    });
    if (fixes.length === 0) return;
    await this.ctx.store.transaction(async (work) => {
      if (!(await work.moveDrivers(fixes))) throw driverNotFound();
    });
  }

  /** Who an offer is for: an offer of another driver is as unknown as one that does not exist. */
  async #offerParties(input: { driverId: string; offerId: string }): Promise<{ shipmentId: string; driverId: string }> {
    const driverId = id("driver_id", input.driverId);
    const parties = await this.ctx.store.offerParties(id("offer_id", input.offerId));
    if (!parties || parties.driverId !== driverId) throw offerNotFound();
    return parties;
  }
}
