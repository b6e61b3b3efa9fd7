import type { RawSql } from "@tawsil/db";
import type { AloneWrites } from "@tawsil/events";
import type { AssignmentChange, DriverChange, JobWork } from "../app/ports";
import type { Coordinate } from "@tawsil/domain";
import type { DispatchJob } from "../domain/dispatch-job";
import type { Driver } from "../domain/driver";
import type { Offer, OfferState } from "../domain/offer";
import { randomUUID } from "node:crypto";
import { DRIVER_COLUMNS, driverFromRecord, FREE_DRIVER, JOB_COLUMNS, jobFromRecord, OFFER_COLUMNS, offerFromRecord, type DriverRecord, type JobRecord, type OfferRecord } from "./job-sql";
import { writeAssignmentChanged, writeCityStaffing, writeDriverLocations } from "./events";
import type { CityStaffing } from "../domain/city-staffing";
import { Prisma } from "./prisma/generated/client";
import { announceOffer, announceShiftChange, DISPATCHER_CHANNEL, jobWakeUp, wakeForDriver, wakeForJob } from "./wake-ups";

/** One transaction of the pool (ServiceDatabase.sql), or Prisma's: both answer the raw calls used here. */
export type Tx = RawSql;

const JOB = Prisma.raw(JOB_COLUMNS);
const DRIVER = Prisma.raw(DRIVER_COLUMNS);
const FREE = Prisma.raw(FREE_DRIVER);
const OFFER = Prisma.raw(OFFER_COLUMNS);

/**
 * New jobs' insert and each one's wake-up riding on it (a notification is sent on commit either
 * way: one round trip, not two), as CTEs over `$first`, the jobs as one JSON array (a job's
 * requirements and tried drivers are arrays, which unnest would flatten), their rows selected only
 * when `gate` (a relation, or none) has a row: `applied` holds a row per job created, none for a
 * shipment that has one already. A job's created_at is its shipment's creation time when the
 * event gave it (the backlog's order is the shipments', across partitions), else the insert's
 * clock_timestamp(), not the transaction's now(): jobs created in one batch keep their order.
 */
function createJobsCtes(jobs: readonly DispatchJob[], first: number, gate: string): AloneWrites {
  const rows = jobs.map((job, ord) => ({
    ord,
    shipment_id: job.shipmentId,
    merchant_id: job.merchantId,
    city_code: job.cityCode,
    service_level: job.serviceLevel,
    pickup_latitude_micro: job.pickup.latitudeMicro,
    pickup_longitude_micro: job.pickup.longitudeMicro,
    destination_latitude_micro: job.destination.latitudeMicro,
    destination_longitude_micro: job.destination.longitudeMicro,
    weight_grams: job.weightGrams,
    longest_side_mm: job.longestSideMm,
    requirements: [...job.requirements],
    cash_on_delivery: job.cashOnDelivery,
    state: job.state,
    shipment_version: job.shipmentVersion.toString(),
    attempts: job.attempts,
    tried_driver_ids: [...job.triedDriverIds],
    deadline: job.deadline?.toISOString() ?? null,
    unresolved_count: job.unresolvedCount,
    retry_at: job.retryAt?.toISOString() ?? null,
    offerable_at: job.offerableAt?.toISOString() ?? null,
    pickup_address: job.delivery?.pickupAddress ?? null,
    destination_address: job.delivery?.destinationAddress ?? null,
    cod_amount: job.delivery?.codAmount ?? null,
    recipient_name: job.delivery?.recipientName ?? null,
    created_at: job.shipmentCreatedAt?.toISOString() ?? null,
    wake: jobWakeUp(job.shipmentId).payload,
  }));
  const ctes = `input AS (
      SELECT * FROM jsonb_to_recordset($${first}::jsonb) AS t(ord int, shipment_id uuid, merchant_id uuid, city_code text,
        service_level service_level, pickup_latitude_micro int, pickup_longitude_micro int, destination_latitude_micro int, destination_longitude_micro int,
        weight_grams int, longest_side_mm int, requirements text[], cash_on_delivery boolean, state dispatch_job_state, shipment_version bigint, attempts int,
        tried_driver_ids uuid[], deadline timestamptz, unresolved_count int, retry_at timestamptz, offerable_at timestamptz,
        pickup_address text, destination_address text, cod_amount text, recipient_name text, created_at timestamptz, wake text)
    ), created AS (
      INSERT INTO dispatch_job (shipment_id, merchant_id, city_code, service_level, pickup_latitude_micro, pickup_longitude_micro,
        destination_latitude_micro, destination_longitude_micro, weight_grams, longest_side_mm, requirements, cash_on_delivery, state,
        shipment_version, attempts, tried_driver_ids, deadline, unresolved_count, retry_at, offerable_at,
        pickup_address, destination_address, cod_amount, recipient_name, created_at, updated_at)
      SELECT shipment_id, merchant_id, city_code, service_level, pickup_latitude_micro, pickup_longitude_micro,
        destination_latitude_micro, destination_longitude_micro, weight_grams, longest_side_mm, requirements, cash_on_delivery, state,
        shipment_version, attempts, tried_driver_ids, deadline, unresolved_count, retry_at, offerable_at,
        pickup_address, destination_address, cod_amount, recipient_name, coalesce(created_at, clock_timestamp()), clock_timestamp()
      FROM input${gate ? ` WHERE EXISTS (SELECT 1 FROM ${gate})` : ""} ORDER BY ord
      ON CONFLICT (shipment_id) DO NOTHING
      RETURNING shipment_id
    ), applied AS (
      SELECT c.shipment_id::text AS shipment_id, pg_notify('${DISPATCHER_CHANNEL}', i.wake)::text AS notified FROM created c JOIN input i USING (shipment_id)
    )`;
  return { ctes, values: [JSON.stringify(rows)] };
}

/**
 * A new job's writes as the event consumer's one statement with its claim (IdempotentConsumer's
 * `alone`): gated on its `go`, their parameter numbered `first`. A shipment that has a job
 * already creates none, claims nothing, and takes the handler's way (the job locked and followed).
 */
export function createJobAlone(job: DispatchJob, first: number): AloneWrites {
  return createJobsCtes([job], first, "go");
}

/**
 * JobWork over one transaction (the dispatch store's, or the event consumer's), every statement
 * raw SQL (job-sql.ts) on the pool's connection.
 */
export class SqlJobWork implements JobWork {
  constructor(private readonly tx: Tx) {}

  async lockJob(shipmentId: string): Promise<DispatchJob | undefined> {
    // The row lock and the read in one statement (it was a locking SELECT and a findUnique).
    const rows = await this.tx.$queryRaw<JobRecord[]>`SELECT ${JOB} FROM dispatch_job WHERE shipment_id = ${shipmentId}::uuid FOR UPDATE`;
    return rows[0] ? jobFromRecord(rows[0]) : undefined;
  }

  async createJob(job: DispatchJob): Promise<boolean> {
    return (await this.createJobs([job])).size === 1;
  }

  async createJobs(jobs: readonly DispatchJob[]): Promise<Set<string>> {
    if (jobs.length === 0) return new Set();
    const { ctes, values } = createJobsCtes(jobs, 1, "");
    const created = await this.tx.$queryRawUnsafe<{ shipment_id: string }[]>(`WITH ${ctes} SELECT shipment_id FROM applied`, ...values);
    return new Set(created.map((row) => row.shipment_id));
  }

  async saveJob(job: DispatchJob): Promise<void> {
    // What a transition may change; the parcel facts are written once, at creation, and
    // offerable_at is cleared only by the dispatcher's release (releaseHeldJobs).
    await this.tx.$executeRaw`
      UPDATE dispatch_job SET state = ${job.state}::dispatch_job_state, shipment_version = ${job.shipmentVersion}::bigint, attempts = ${job.attempts}::int,
        tried_driver_ids = ${[...job.triedDriverIds]}::uuid[], deadline = ${job.deadline}::timestamptz, unresolved_count = ${job.unresolvedCount}::int,
        retry_at = ${job.retryAt}::timestamptz, updated_at = clock_timestamp(),
        -- The recipient is the driver's to know while the job is active, and nobody's after.
        recipient_name = CASE WHEN ${job.state} IN ('DONE', 'CANCELLED') THEN NULL ELSE recipient_name END,
        recipient_phone = CASE WHEN ${job.state} IN ('DONE', 'CANCELLED') THEN NULL ELSE recipient_phone END
      WHERE shipment_id = ${job.shipmentId}::uuid`;
  }

  async recordRecipientPhone(shipmentId: string, phone: string): Promise<void> {
    await this.tx.$executeRaw`UPDATE dispatch_job SET recipient_phone = ${phone} WHERE shipment_id = ${shipmentId}::uuid`;
  }

  async openOffer(shipmentId: string): Promise<Offer | undefined> {
    const rows = await this.tx.$queryRaw<OfferRecord[]>`SELECT ${OFFER} FROM offer WHERE shipment_id = ${shipmentId}::uuid AND state = 'OPEN' LIMIT 1`;
    return rows[0] ? offerFromRecord(rows[0]) : undefined;
  }

  async offer(offerId: string): Promise<Offer | undefined> {
    const rows = await this.tx.$queryRaw<OfferRecord[]>`SELECT ${OFFER} FROM offer WHERE id = ${offerId}::uuid`;
    return rows[0] ? offerFromRecord(rows[0]) : undefined;
  }

  async createOffer(offer: { shipmentId: string; driverId: string; expiresAt: Date }): Promise<Offer> {
    const id = randomUUID();
    await this.tx.$executeRaw`
      INSERT INTO offer (id, shipment_id, driver_id, state, expires_at, created_at, updated_at)
      VALUES (${id}::uuid, ${offer.shipmentId}::uuid, ${offer.driverId}::uuid, 'OPEN', ${offer.expiresAt}::timestamptz, clock_timestamp(), clock_timestamp())`;
    return { id, shipmentId: offer.shipmentId, driverId: offer.driverId, state: "OPEN", expiresAt: offer.expiresAt };
  }

  async setOfferState(offerId: string, state: OfferState): Promise<void> {
    await this.tx.$executeRaw`UPDATE offer SET state = ${state}::offer_state, updated_at = clock_timestamp() WHERE id = ${offerId}::uuid`;
  }

  async withdrawOpenOffers(shipmentId: string): Promise<void> {
    await this.tx.$executeRaw`UPDATE offer SET state = 'WITHDRAWN', updated_at = clock_timestamp() WHERE shipment_id = ${shipmentId}::uuid AND state = 'OPEN'`;
  }

  async driver(driverId: string): Promise<Driver | undefined> {
    const rows = await this.tx.$queryRaw<DriverRecord[]>`SELECT ${DRIVER} FROM driver d WHERE d.id = ${driverId}::uuid`;
    return rows[0] ? driverFromRecord(rows[0]) : undefined;
  }

  async freeDrivers(cityCode: string, serviceIds: readonly string[]): Promise<Driver[]> {
    const rows = await this.tx.$queryRaw<DriverRecord[]>`
      SELECT ${DRIVER} FROM driver d WHERE d.city_code = ${cityCode} AND d.carrier_service_id = ANY(${[...serviceIds]}::uuid[]) AND ${FREE}`;
    return rows.map(driverFromRecord);
  }

  async updateDriver(driverId: string, change: DriverChange): Promise<void> {
    // Only the fields the change names; a null current shipment is a change too.
    const set: Prisma.Sql[] = [];
    if (change.available !== undefined) set.push(Prisma.sql`available = ${change.available}::boolean`);
    if (change.availableSince !== undefined) set.push(Prisma.sql`available_since = ${change.availableSince}::timestamptz`);
    if (change.position !== undefined) set.push(Prisma.sql`latitude_micro = ${change.position.latitudeMicro}::int, longitude_micro = ${change.position.longitudeMicro}::int`);
    if (change.positionAt !== undefined) set.push(Prisma.sql`position_at = ${change.positionAt}::timestamptz`);
    if (change.currentShipmentId !== undefined) set.push(Prisma.sql`current_shipment_id = ${change.currentShipmentId}::uuid`);
    set.push(Prisma.sql`updated_at = clock_timestamp()`);
    const updated = await this.tx.$executeRaw`UPDATE driver SET ${Prisma.join(set, ", ")} WHERE id = ${driverId}::uuid`;
    // As the model API's update did: a driver that is not there is an error, not a no-op.
    if (updated !== 1) throw new Error(`driver ${driverId} does not exist`);
  }

  recordAssignmentChange(change: { shipmentId: string; offerId: string; driverId: string; change: AssignmentChange; at: Date }): Promise<void> {
    return writeAssignmentChanged(this.tx, change);
  }

  async moveDrivers(fixes: readonly { driverId: string; position: Coordinate; accuracyMetres: number; recordedAt: Date }[]): Promise<boolean> {
    if (fixes.length === 0) return true;
    // Each driver moves to its latest fix (a batch of one app's fixes, or one fix each of many drivers);
    // every fix is recorded. Two statements whatever the batch holds.
    const latest = new Map<string, (typeof fixes)[number]>();
    for (const fix of fixes) {
      const kept = latest.get(fix.driverId);
      if (!kept || kept.recordedAt <= fix.recordedAt) latest.set(fix.driverId, fix);
    }
    const moves = [...latest.values()];
    const moved = await this.tx.$queryRaw<{ id: string; current_shipment_id: string | null }[]>`
      UPDATE driver d SET latitude_micro = t.latitude_micro, longitude_micro = t.longitude_micro, position_at = t.position_at, updated_at = clock_timestamp()
      FROM unnest(${moves.map((f) => f.driverId)}::uuid[], ${moves.map((f) => f.position.latitudeMicro)}::int[], ${moves.map((f) => f.position.longitudeMicro)}::int[],
        ${moves.map((f) => f.recordedAt.toISOString())}::timestamptz[]) AS t(id, latitude_micro, longitude_micro, position_at)
      WHERE d.id = t.id
      RETURNING d.id::text AS id, d.current_shipment_id::text AS current_shipment_id`;
    if (moved.length < moves.length) return false;
    const carried = new Map(moved.map((row) => [row.id, row.current_shipment_id]));
    await writeDriverLocations(
      this.tx,
      fixes.map((fix) => ({ ...fix, shipmentId: carried.get(fix.driverId) ?? null })),
    );
    return true;
  }

  wakeForJob = (shipmentId: string) => wakeForJob(this.tx, shipmentId);
  wakeForDriver = (driverId: string) => wakeForDriver(this.tx, driverId);
  announceOffer = (driverId: string) => announceOffer(this.tx, driverId);
  announceShiftChange = () => announceShiftChange(this.tx);
  recordCityStaffing = (staffing: CityStaffing, at: Date) => writeCityStaffing(this.tx, staffing, at);
}
