import { withTransaction } from "@tawsil/db";
import type { BacklogOrder, CurrentJob, DispatchStore, DriverJob, JobWork, OpenOffer } from "../app/ports";
import type { CarrierService } from "../domain/catalogue";
import type { DispatchJob } from "../domain/dispatch-job";
import type { Driver } from "../domain/driver";
import { dueOffers, freeDriver, freeDriverIds, nextHeldRelease, nextOfferExpiry, nextJobFor, offeredJobsWithoutOffer, releaseHeldJobs } from "./dispatch-queries";
import { jobFromRow } from "./dispatch-rows";
import { PrismaJobWork } from "./prisma-job-work";
import type { PrismaClient } from "./prisma/generated/client";

/** Dispatch's PostgreSQL database through Prisma. */
export class PrismaDispatchStore implements DispatchStore {
  constructor(private readonly db: PrismaClient) {}

  transaction<R>(fn: (work: JobWork) => Promise<R>): Promise<R> {
    // No call to another service runs inside: these stay short, so the limits are generous only for a busy machine.
    return withTransaction(this.db, (tx) => fn(new PrismaJobWork(tx)), { timeoutMs: 30_000, maxWaitMs: 10_000 });
  }

  freeDriver = (driverId: string): Promise<Driver | undefined> => freeDriver(this.db, driverId);

  freeDriverIds = () => freeDriverIds(this.db);
  offeredJobsWithoutOffer = () => offeredJobsWithoutOffer(this.db);
  dueOffers = (now: Date, limit: number) => dueOffers(this.db, now, limit);
  nextOfferExpiry = () => nextOfferExpiry(this.db);
  releaseHeldJobs = (now: Date, limit: number) => releaseHeldJobs(this.db, now, limit);
  nextHeldRelease = () => nextHeldRelease(this.db);
  nextJobFor = (driver: Driver, service: CarrierService, now: Date, skip: readonly string[], order: BacklogOrder) => nextJobFor(this.db, driver, service, now, skip, order);

  async driverExists(driverId: string): Promise<boolean> {
    return (await this.db.driver.findUnique({ where: { id: driverId }, select: { id: true } })) !== null;
  }

  async openOffersOf(driverId: string, now: Date): Promise<OpenOffer[]> {
    const offers = await this.db.offer.findMany({ where: { driverId, state: "OPEN", expiresAt: { gt: now } }, include: { job: true }, orderBy: { createdAt: "asc" } });
    return offers.map((offer) => ({ offerId: offer.id, expiresAt: offer.expiresAt, ...driverJobOf(jobFromRow(offer.job)) }));
  }

  async currentJobsOf(driverId: string): Promise<CurrentJob[]> {
    const driver = await this.db.driver.findUnique({ where: { id: driverId }, select: { currentShipmentId: true } });
    if (!driver?.currentShipmentId) return [];
    const row = await this.db.dispatchJob.findUnique({ where: { shipmentId: driver.currentShipmentId } });
    if (!row) return [];
    const job = jobFromRow(row);
    return [{ ...driverJobOf(job), recipientName: job.delivery?.recipientName ?? "", recipientPhone: job.delivery?.recipientPhone ?? "" }];
  }

  async offerParties(offerId: string): Promise<{ shipmentId: string; driverId: string } | undefined> {
    return (await this.db.offer.findUnique({ where: { id: offerId }, select: { shipmentId: true, driverId: true } })) ?? undefined;
  }

  async job(shipmentId: string): Promise<DispatchJob | undefined> {
    const row = await this.db.dispatchJob.findUnique({ where: { shipmentId } });
    return row ? jobFromRow(row) : undefined;
  }
}

/** What a driver is shown of a job: never the merchant, the dispatch bookkeeping or other drivers tried. */
function driverJobOf(job: DispatchJob): DriverJob {
  const { shipmentId, pickup, destination, cityCode, weightGrams, longestSideMm, requirements, cashOnDelivery, delivery } = job;
  return {
    shipmentId,
    pickup,
    destination,
    cityCode,
    weightGrams,
    longestSideMm,
    requirements,
    cashOnDelivery,
    pickupAddress: delivery?.pickupAddress ?? "",
    destinationAddress: delivery?.destinationAddress ?? "",
    codAmount: delivery?.codAmount ?? "0.00",
  };
}
