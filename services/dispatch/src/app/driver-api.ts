import { parseCoordinate, type Coordinate } from "@tawsil/domain";
import { ValidationError } from "@tawsil/errors";
import { driverNotFound, notAssigned, offerNotFound, offerNotOpen, stepNotAllowed } from "../domain/errors";
import { writeAssignmentChanged, writeDriverLocation } from "../infra/events";
import { announceShiftChange, wakeForDriver, wakeForJob } from "../infra/wake-ups";
import type { Step } from "../infra/shipment-client";
import { inTransaction, lockJob, nowOf, type DispatchContext, type Tx } from "./context";
import { isUuid } from "@tawsil/domain";

export type Progress = "PICKED_UP" | "OUT_FOR_DELIVERY" | "DELIVERED" | "FAILED";

const STEP_OF: Record<Progress, Step> = { PICKED_UP: "PICK_UP", OUT_FOR_DELIVERY: "START_LAST_LEG", DELIVERED: "DELIVER", FAILED: "FAIL" };
const REASON_CODE = /^[A-Z][A-Z0-9_]{1,47}$/;

export interface OpenOffer {
  readonly offerId: string;
  readonly shipmentId: string;
  readonly pickup: Coordinate;
  readonly destination: Coordinate;
  readonly expiresAt: Date;
}

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
  ) {}

  async setAvailability(input: { driverId: string; available: boolean; position?: Coordinate | undefined }): Promise<void> {
    const driverId = id("driver_id", input.driverId);
    const position = input.position ? parseCoordinate("position", input.position) : undefined;
    const shiftChanged = await inTransaction(this.ctx, async (tx) => {
      const driver = await tx.driver.findUnique({ where: { id: driverId } });
      if (!driver) throw driverNotFound();
      const now = nowOf(this.ctx);
      await tx.driver.update({
        where: { id: driverId },
        data: {
          available: input.available,
          ...(input.available && !driver.available ? { availableSince: now } : {}),
          ...(position ? { latitudeMicro: position.latitudeMicro, longitudeMicro: position.longitudeMicro, positionAt: now } : {}),
        },
      });
      // On duty and carrying nothing: the dispatcher's leader looks for a job for them.
      if (input.available && !driver.currentShipmentId) await wakeForDriver(tx, driverId);
      // Eligibility needs a driver on shift: every replica's index learns of it on commit.
      if (input.available !== driver.available) await announceShiftChange(tx);
      return input.available !== driver.available;
    });
    // Before answering, so this replica's next eligibility answer already counts the driver. The
    // change has committed either way: a failed reload is the index's to retry, not the caller's error.
    if (shiftChanged) await this.activeDrivers?.refresh().catch((err: unknown) => this.ctx.logger.warn({ err }, "active driver index reload failed after a shift change"));
  }

  async listOffers(input: { driverId: string }): Promise<OpenOffer[]> {
    const driverId = id("driver_id", input.driverId);
    const driver = await this.ctx.db.driver.findUnique({ where: { id: driverId }, select: { id: true } });
    if (!driver) throw driverNotFound();
    const offers = await this.ctx.db.offer.findMany({
      where: { driverId, state: "OPEN", expiresAt: { gt: nowOf(this.ctx) } },
      include: { job: true },
      orderBy: { createdAt: "asc" },
    });
    return offers.map((offer) => ({
      offerId: offer.id,
      shipmentId: offer.shipmentId,
      pickup: { latitudeMicro: offer.job.pickupLatitudeMicro, longitudeMicro: offer.job.pickupLongitudeMicro },
      destination: { latitudeMicro: offer.job.destinationLatitudeMicro, longitudeMicro: offer.job.destinationLongitudeMicro },
      expiresAt: offer.expiresAt,
    }));
  }

  /** An open, unexpired offer becomes the driver's shipment (ACCEPTED at the shipment service). */
  async acceptOffer(input: { driverId: string; offerId: string }): Promise<void> {
    await this.#withOffer(input, async (tx, offer, now) => {
      const driver = await tx.driver.findUnique({ where: { id: offer.driverId } });
      if (driver?.currentShipmentId) throw offerNotOpen();
      const job = await tx.dispatchJob.findUniqueOrThrow({ where: { shipmentId: offer.shipmentId } });
      const step = await this.ctx.shipments.applyStep(offer.shipmentId, "ACCEPT", job.shipmentVersion);
      if (!step.ok) {
        this.ctx.logger.warn({ shipmentId: offer.shipmentId, reason: step.reason }, "the shipment service refused an acceptance");
        throw offerNotOpen();
      }
      await tx.offer.update({ where: { id: offer.id }, data: { state: "ACCEPTED" } });
      await tx.dispatchJob.update({ where: { shipmentId: offer.shipmentId }, data: { state: "ASSIGNED", shipmentVersion: step.version } });
      await tx.driver.update({ where: { id: offer.driverId }, data: { currentShipmentId: offer.shipmentId } });
      await writeAssignmentChanged(tx, { shipmentId: offer.shipmentId, offerId: offer.id, driverId: offer.driverId, change: "ACCEPTED", at: now });
    });
  }

  /** An open offer is declined; on commit the dispatcher offers the next candidate, and may give the driver another job. */
  async declineOffer(input: { driverId: string; offerId: string }): Promise<void> {
    await this.#withOffer(input, async (tx, offer, now) => {
      await tx.offer.update({ where: { id: offer.id }, data: { state: "DECLINED" } });
      await writeAssignmentChanged(tx, { shipmentId: offer.shipmentId, offerId: offer.id, driverId: offer.driverId, change: "DECLINED", at: now });
      await wakeForJob(tx, offer.shipmentId);
      await wakeForDriver(tx, offer.driverId);
    });
  }

  async reportProgress(input: { driverId: string; shipmentId: string; progress: Progress; reasonCode: string }): Promise<void> {
    const driverId = id("driver_id", input.driverId);
    const shipmentId = id("shipment_id", input.shipmentId);
    if (input.progress === "FAILED" && !REASON_CODE.test(input.reasonCode)) throw new ValidationError("reason_code", "is required with PROGRESS_FAILED, pattern ^[A-Z][A-Z0-9_]{1,47}$");
    await inTransaction(this.ctx, async (tx) => {
      const job = await lockJob(tx, shipmentId);
      const driver = await tx.driver.findUnique({ where: { id: driverId } });
      if (!driver) throw driverNotFound();
      if (!job || driver.currentShipmentId !== shipmentId) throw notAssigned();
      const step = await this.ctx.shipments.applyStep(shipmentId, STEP_OF[input.progress], 0n, input.progress === "FAILED" ? input.reasonCode : "");
      if (!step.ok) throw stepNotAllowed();
      const finished = input.progress === "DELIVERED" || input.progress === "FAILED";
      await tx.dispatchJob.update({
        where: { shipmentId },
        data: { shipmentVersion: step.version > job.shipmentVersion ? step.version : job.shipmentVersion, ...(finished ? { state: "DONE" } : {}) },
      });
      // A driver who finishes is free again: unresolved jobs may now be retried with them.
      if (finished) {
        await tx.driver.update({ where: { id: driverId }, data: { currentShipmentId: null, availableSince: nowOf(this.ctx) } });
        await wakeForDriver(tx, driverId);
      }
    });
  }

  async reportLocation(input: { driverId: string; position: Coordinate | undefined; accuracyMetres: number; recordTimeMs: bigint }): Promise<void> {
    const driverId = id("driver_id", input.driverId);
    const position = parseCoordinate("position", input.position);
    if (input.accuracyMetres < 0) throw new ValidationError("accuracy_metres", "must not be negative");
    const recordedAt = input.recordTimeMs > 0n ? new Date(Number(input.recordTimeMs)) : nowOf(this.ctx);
    await inTransaction(this.ctx, async (tx) => {
      const driver = await tx.driver.findUnique({ where: { id: driverId } });
      if (!driver) throw driverNotFound();
      await tx.driver.update({ where: { id: driverId }, data: { latitudeMicro: position.latitudeMicro, longitudeMicro: position.longitudeMicro, positionAt: recordedAt } });
      await writeDriverLocation(tx, { driverId, shipmentId: driver.currentShipmentId, position, accuracyMetres: input.accuracyMetres, recordedAt });
    });
  }

  /** Runs `fn` on the driver's open, unexpired offer under its job's lock. */
  async #withOffer(
    input: { driverId: string; offerId: string },
    fn: (tx: Tx, offer: { id: string; shipmentId: string; driverId: string }, now: Date) => Promise<void>,
  ): Promise<void> {
    const driverId = id("driver_id", input.driverId);
    const offerId = id("offer_id", input.offerId);
    const found = await this.ctx.db.offer.findUnique({ where: { id: offerId }, select: { shipmentId: true, driverId: true } });
    if (!found || found.driverId !== driverId) throw offerNotFound();
    await inTransaction(this.ctx, async (tx) => {
      await lockJob(tx, found.shipmentId);
      const offer = await tx.offer.findUniqueOrThrow({ where: { id: offerId } });
      const now = nowOf(this.ctx);
      if (offer.state !== "OPEN" || offer.expiresAt <= now) throw offerNotOpen();
      await fn(tx, offer, now);
    });
  }
}
