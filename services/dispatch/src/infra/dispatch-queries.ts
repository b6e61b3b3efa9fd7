import type { CarrierService } from "../domain/catalogue";
import type { BacklogOrder } from "../app/ports";
import type { Driver as FreeDriver } from "../domain/driver";
import { levelCanHonour } from "../domain/requirements";
import { DRIVER_COLUMNS, driverFromRecord, FREE_DRIVER, type DriverRecord } from "./job-sql";
import type { RawSql } from "@tawsil/db";
import { Prisma } from "./prisma/generated/client";

/**
 * The dispatcher's reads that are not about one job: each is an index lookup whose cost does not
 * grow with the number of jobs waiting (see the indexes in schema.prisma).
 */

/** A driver who could take an offer now: on duty, carrying nothing, holding no open offer. */
export async function freeDriver(db: RawSql, driverId: string): Promise<FreeDriver | undefined> {
  const rows = await db.$queryRaw<DriverRecord[]>`SELECT ${Prisma.raw(DRIVER_COLUMNS)} FROM driver d WHERE d.id = ${driverId}::uuid AND ${Prisma.raw(FREE_DRIVER)}`;
  return rows[0] ? driverFromRecord(rows[0]) : undefined;
}

/** Every free driver: bounded by the fleet, not by the backlog. */
export async function freeDriverIds(db: RawSql): Promise<string[]> {
  const rows = await db.$queryRaw<{ id: string }[]>`SELECT d.id::text AS id FROM driver d WHERE ${Prisma.raw(FREE_DRIVER)}`;
  return rows.map((row) => row.id);
}

/** Offered jobs left without an open offer (a decline whose wake-up was lost): at most one per driver offered. */
export async function offeredJobsWithoutOffer(db: RawSql): Promise<string[]> {
  const rows = await db.$queryRaw<{ shipment_id: string }[]>`
    SELECT j.shipment_id::text AS shipment_id FROM dispatch_job j
     WHERE j.state = 'OFFERED' AND NOT EXISTS (SELECT 1 FROM offer o WHERE o.shipment_id = j.shipment_id AND o.state = 'OPEN')`;
  return rows.map((row) => row.shipment_id);
}

/** Open offers whose time is up, earliest first. */
export async function dueOffers(db: RawSql, now: Date, limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ shipment_id: string }[]>`
    SELECT shipment_id::text AS shipment_id FROM offer WHERE state = 'OPEN' AND expires_at <= ${now}::timestamptz ORDER BY expires_at LIMIT ${limit}::int`;
  return rows.map((row) => row.shipment_id);
}

/** When the next open offer expires, if any. */
export async function nextOfferExpiry(db: RawSql): Promise<Date | undefined> {
  const [row] = await db.$queryRaw<{ expires_at: Date }[]>`SELECT expires_at FROM offer WHERE state = 'OPEN' ORDER BY expires_at LIMIT 1`;
  return row?.expires_at;
}

/**
 * Held jobs whose offerable instant has come, earliest first, released in the same statement
 * (offerable_at cleared) so the next release never returns them again however long they wait for
 * a driver. A held job cancelled meanwhile is released too (its step then does nothing).
 */
export async function releaseHeldJobs(db: RawSql, now: Date, limit: number): Promise<string[]> {
  const rows = await db.$queryRaw<{ shipment_id: string }[]>`
    UPDATE dispatch_job SET offerable_at = NULL, updated_at = clock_timestamp()
     WHERE shipment_id IN (SELECT shipment_id FROM dispatch_job WHERE offerable_at <= ${now}::timestamptz
                            ORDER BY offerable_at LIMIT ${limit}::int FOR UPDATE SKIP LOCKED)
    RETURNING shipment_id::text AS shipment_id`;
  return rows.map((row) => row.shipment_id);
}

/** The earliest instant a held job may be offered (the first entry of the offerable_at index). */
export async function nextHeldRelease(db: RawSql): Promise<Date | undefined> {
  const [row] = await db.$queryRaw<{ offerable_at: Date }[]>`SELECT offerable_at FROM dispatch_job WHERE offerable_at IS NOT NULL ORDER BY offerable_at LIMIT 1`;
  return row?.offerable_at;
}

/**
 * The oldest (or, by the order given, newest) job of the driver's city that the driver's service can carry (the same rules as
 * eligibility's canCarry) and that may be offered to this driver: a waiting job the driver has not
 * been tried for, or an unresolved one past its back-off that the driver has not been tried for
 * or that gave up before the driver became free again. A job held for its pickup window is not
 * offered before its time. `skip` excludes jobs already looked at.
 */
export async function nextJobFor(db: RawSql, driver: FreeDriver, service: CarrierService, now: Date, skip: readonly string[], order: BacklogOrder): Promise<string | undefined> {
  const honoured = [...service.requirements].filter((requirement) => levelCanHonour(service.level, requirement));
  const rows = await db.$queryRawUnsafe<{ shipment_id: string }[]>(
    `SELECT shipment_id::text AS shipment_id FROM dispatch_job
      WHERE city_code = $1 AND state IN ('WAITING', 'UNRESOLVED')
        AND weight_grams <= $2 AND longest_side_mm <= $3 AND ($4 OR NOT cash_on_delivery)
        AND requirements <@ $5::text[]
        AND shipment_id <> ALL($6::uuid[])
        AND (offerable_at IS NULL OR offerable_at <= $8)
        AND CASE WHEN state = 'WAITING' THEN NOT ($7::uuid = ANY(coalesce(tried_driver_ids, '{}')))
            ELSE (retry_at IS NULL OR retry_at <= $8)
              AND (NOT ($7::uuid = ANY(coalesce(tried_driver_ids, '{}'))) OR deadline < $9::timestamptz) END
      ORDER BY created_at ${order === "NEWEST_FIRST" ? "DESC" : "ASC"} LIMIT 1`,
    driver.cityCode,
    service.maxWeightGrams,
    service.maxLongestSideMm,
    service.supportsCod,
    honoured,
    [...skip],
    driver.id,
    now,
    driver.availableSince,
  );
  return rows[0]?.shipment_id;
}
