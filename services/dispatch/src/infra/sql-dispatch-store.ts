import type { PgSql } from "@tawsil/db";
import type { BacklogOrder, CurrentJob, DispatchStore, DriverJob, JobWork, OpenOffer } from "../app/ports";
import type { CarrierService } from "../domain/catalogue";
import type { DispatchJob } from "../domain/dispatch-job";
import type { Driver } from "../domain/driver";
import { dueOffers, freeDriver, freeDriverIds, nextHeldRelease, nextOfferExpiry, nextJobFor, offeredJobsWithoutOffer, releaseHeldJobs } from "./dispatch-queries";
import { DRIVER_COLUMNS, driverFromRecord, FREE_DRIVER, JOB_COLUMNS, jobFromRecord, JOB_WITH_DELIVERY_COLUMNS, jobWithDeliveryFromRecord, type DriverRecord, type JobRecord, type JobWithDeliveryRecord } from "./job-sql";
import { SqlJobWork } from "./sql-job-work";
import { Prisma } from "./prisma/generated/client";

const JOB = Prisma.raw(JOB_WITH_DELIVERY_COLUMNS);
const JOB_ALONE = Prisma.raw(JOB_COLUMNS);
const DRIVER = Prisma.raw(DRIVER_COLUMNS);
const FREE = Prisma.raw(FREE_DRIVER);

/**
 * Dispatch's PostgreSQL database, every statement raw SQL on the pool (ServiceDatabase.sql): the
 * driver API's reads run for every request of every driver on shift.
 */
export class SqlDispatchStore implements DispatchStore {
  constructor(private readonly db: PgSql) {}

  transaction<R>(fn: (work: JobWork) => Promise<R>): Promise<R> {
    // No call to another service runs inside: these stay short, so the limits are generous only for a busy machine.
    return this.db.transaction((tx) => fn(new SqlJobWork(tx)), { timeoutMs: 30_000, maxWaitMs: 10_000 });
  }

  freeDriver = (driverId: string): Promise<Driver | undefined> => freeDriver(this.db, driverId);

  freeDriverIds = () => freeDriverIds(this.db);
  offeredJobsWithoutOffer = () => offeredJobsWithoutOffer(this.db);
  dueOffers = (now: Date, limit: number) => dueOffers(this.db, now, limit);
  nextOfferExpiry = () => nextOfferExpiry(this.db);
  releaseHeldJobs = (now: Date, limit: number) => releaseHeldJobs(this.db, now, limit);
  nextHeldRelease = () => nextHeldRelease(this.db);
  nextJobFor = (driver: Driver, service: CarrierService, now: Date, skip: readonly string[], order: BacklogOrder) => nextJobFor(this.db, driver, service, now, skip, order);

  /**
   * The driver's open offers, oldest first, or undefined for a driver unknown here: one statement
   * for both answers, as a driver's app asks for every long poll it opens.
   */
  async openOffersOf(driverId: string, now: Date): Promise<OpenOffer[] | undefined> {
    const rows = await this.db.$queryRaw<(Partial<JobWithDeliveryRecord> & { offer_id: string | null; offer_expires_at: Date | null })[]>`
      SELECT x.*
        FROM driver d
        LEFT JOIN LATERAL (
          SELECT o.id::text AS offer_id, o.expires_at AS offer_expires_at, o.created_at AS offered_at, j.*
            FROM offer o CROSS JOIN LATERAL (SELECT ${JOB} FROM dispatch_job WHERE shipment_id = o.shipment_id) j
           WHERE o.driver_id = d.id AND o.state = 'OPEN' AND o.expires_at > ${now}::timestamptz) x ON true
       WHERE d.id = ${driverId}::uuid
       ORDER BY x.offered_at`;
    if (rows.length === 0) return undefined;
    return rows
      .filter((row) => row.offer_id !== null)
      .map((row) => ({ offerId: row.offer_id!, expiresAt: row.offer_expires_at!, ...driverJobOf(jobWithDeliveryFromRecord(row as JobWithDeliveryRecord)) }));
  }

  /** The shipment the driver carries now (none, or one), or undefined for a driver unknown here; one statement. */
  async currentJobsOf(driverId: string): Promise<CurrentJob[] | undefined> {
    const rows = await this.db.$queryRaw<(Partial<JobWithDeliveryRecord> & { carried: boolean })[]>`
      SELECT j.shipment_id IS NOT NULL AS carried, j.*
        FROM driver d LEFT JOIN LATERAL (SELECT ${JOB} FROM dispatch_job WHERE shipment_id = d.current_shipment_id) j ON true
       WHERE d.id = ${driverId}::uuid`;
    if (rows.length === 0) return undefined;
    return rows
      .filter((row) => row.carried)
      .map((row) => {
        const job = jobWithDeliveryFromRecord(row as JobWithDeliveryRecord);
        return { ...driverJobOf(job), recipientName: job.delivery?.recipientName ?? "", recipientPhone: job.delivery?.recipientPhone ?? "" };
      });
  }

  async offerParties(offerId: string): Promise<{ shipmentId: string; driverId: string } | undefined> {
    const [row] = await this.db.$queryRaw<{ shipment_id: string; driver_id: string }[]>`
      SELECT shipment_id::text AS shipment_id, driver_id::text AS driver_id FROM offer WHERE id = ${offerId}::uuid`;
    return row ? { shipmentId: row.shipment_id, driverId: row.driver_id } : undefined;
  }

  async jobWithFreeDrivers(shipmentId: string): Promise<{ job: DispatchJob; freeDrivers: Driver[] } | undefined> {
    // The drivers as JSON (their instants as text, which driverFromRecord reads): one row, not one per driver with the job repeated.
    const [row] = await this.db.$queryRaw<(JobRecord & { free_drivers: DriverRecord[] })[]>`
      SELECT j.*, (SELECT coalesce(json_agg(f), '[]'::json) FROM (SELECT ${DRIVER} FROM driver d WHERE d.city_code = j.city_code AND ${FREE}) f) AS free_drivers
        FROM (SELECT ${JOB_ALONE} FROM dispatch_job WHERE shipment_id = ${shipmentId}::uuid) j`;
    return row ? { job: jobFromRecord(row), freeDrivers: row.free_drivers.map(driverFromRecord) } : undefined;
  }

  async job(shipmentId: string): Promise<DispatchJob | undefined> {
    const [row] = await this.db.$queryRaw<JobWithDeliveryRecord[]>`SELECT ${JOB} FROM dispatch_job WHERE shipment_id = ${shipmentId}::uuid`;
    return row ? jobWithDeliveryFromRecord(row) : undefined;
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
