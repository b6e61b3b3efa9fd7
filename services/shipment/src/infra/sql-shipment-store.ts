import { sqlStateOf, violatedConstraintOf, type PgSql, type RawSql } from "@tawsil/db";
import { VersionConflictError } from "@tawsil/errors";
import { writeOutbox } from "@tawsil/events";
import { ShipmentNumberTakenError, type CreateOutcome, type IdempotencyScope, type NewShipment, type ShipmentStore, type ShipmentTx, type StoredRecord } from "../app/ports";
import type { Position } from "../domain/cursor";
import { DuplicateReferenceError, ShipmentValidationError } from "../domain/errors";
import { DRIVER_MEDIA_PURPOSES, unattachedViolations } from "../domain/media-asset";
import type { EvidenceAsset, PinLock } from "../domain/proof-of-delivery";
import { isTerminal, type ShipmentState } from "../domain/lifecycle";
import type { Shipment, ShipmentChange } from "../domain/shipment";
import type { TrackingLink } from "../domain/tracking-link";
import { createStatement, type CreateStatementRow } from "./create-statement";
import { Prisma } from "./prisma/generated/client";
import { SHIPMENT_CHANGED_TYPE, shipmentChangedPayload } from "./shipment-events";
import { shipmentFromRow, type ShipmentRow } from "./shipment-row";
import { selectPendingApproval, selectShipmentById, selectShipmentByTrackingCodeSha256, selectShipmentForUpdate, selectShipmentPage } from "./shipment-select";
import { SHIPMENT_EVENTS_TOPIC } from "@tawsil/topology";

type Tx = RawSql;

export interface StoreOptions {
  /** How long a transaction may wait for a pooled connection: concurrent duplicates queue for it. */
  readonly maxWaitMs: number;
  /** How long one transaction may run, waiting on the idempotency lock included. */
  readonly timeoutMs: number;
  /** A shipment's tracking link: its code's SHA-256 is stored with the row; both go in every event. */
  readonly trackingLink: (shipmentId: string) => TrackingLink;
  /** How long attached media outlive their shipment's terminal state (decisions.md section 18). */
  readonly attachedMediaRetentionMs: number;
}

/**
 * Shipments, their items, idempotency records and the outbox, in the service's own database: raw
 * SQL on the pool (ServiceDatabase.sql) for every statement, since each create, read and state
 * change runs these (issue 34: Prisma's raw API was a fifth of the service's CPU per create).
 */
export class SqlShipmentStore implements ShipmentStore {
  constructor(
    private readonly db: PgSql,
    private readonly options: StoreOptions,
  ) {}

  inTransaction<R>(fn: (tx: ShipmentTx) => Promise<R>): Promise<R> {
    return this.db.transaction((tx) => fn(new SqlShipmentTx(tx, this.options.trackingLink, this.options.attachedMediaRetentionMs)), { maxWaitMs: this.options.maxWaitMs, timeoutMs: this.options.timeoutMs });
  }

  findRecord(scope: IdempotencyScope, now: Date): Promise<StoredRecord | null> {
    return findRecord(this.db, scope, now);
  }

  /** Four round trips: BEGIN, the lock, one statement that reads and writes everything, COMMIT. */
  async createOnce(input: NewShipment): Promise<CreateOutcome> {
    try {
      return await this.db.transaction(
        async (tx) => {
          await lockScope(tx, input.scope, input.waitMs);
          const [row] = await tx.$queryRaw<CreateStatementRow[]>(createStatement(input, this.options.trackingLink(input.shipment.id)));
          if (!row) throw new Error("the create statement returned no row");
          if (row.fingerprint !== null) return { kind: "replay", record: storedRecordOf({ id: input.scope.key, ...row, fingerprint: row.fingerprint }) };
          if (row.referenceTaken) return { kind: "reference-taken" };
          if (row.inserted !== 1) throw new Error(`the create statement inserted ${row.inserted} shipments`);
          // Throwing rolls the whole create back: a shipment never exists with part of its timeline.
          const missing = unattachedViolations(input.shipment.timelineMedia, row.attachedIds);
          if (missing.length > 0) throw new ShipmentValidationError(missing);
          return { kind: "created" };
        },
        { maxWaitMs: this.options.maxWaitMs, timeoutMs: this.options.timeoutMs },
      );
    } catch (error) {
      throw createFailure(error);
    }
  }

  /** The hottest read, where Prisma's own CPU per statement exceeded the query's. */
  async findById(id: string): Promise<Shipment | null> {
    const [row] = await this.db.$queryRaw<ShipmentRow[]>(selectShipmentById(id));
    return row ? shipmentFromRow(row) : null;
  }

  async findByTrackingCodeSha256(hash: Uint8Array): Promise<Shipment | null> {
    const [row] = await this.db.$queryRaw<ShipmentRow[]>(selectShipmentByTrackingCodeSha256(hash));
    return row ? shipmentFromRow(row) : null;
  }

  trackingCodeSha256(shipmentId: string): Uint8Array {
    return this.options.trackingLink(shipmentId).codeSha256;
  }

  async terminalAt(shipmentId: string): Promise<Date | null> {
    const [row] = await this.db.$queryRaw<{ terminal_at: Date | null }[]>`SELECT terminal_at FROM shipment WHERE id = ${shipmentId}::uuid`;
    return row?.terminal_at ?? null;
  }

  /**
   * `created_at <= c AND (created_at < c OR id < i)`: the first conjunct bounds the index range
   * scan on (merchant_id, [state,] created_at DESC, id DESC), the second only filters the rows
   * sharing the boundary millisecond, so no page reads the rows before it.
   */
  async listPage(query: { merchantId: string; state: ShipmentState | null; externalReference: string | null }, after: Position | null, limit: number): Promise<Shipment[]> {
    const rows = await this.db.$queryRaw<ShipmentRow[]>(selectShipmentPage(query, after, limit));
    return rows.map(shipmentFromRow);
  }

  async listPendingApproval(merchantId: string | null, limit: number): Promise<Shipment[]> {
    const rows = await this.db.$queryRaw<ShipmentRow[]>(selectPendingApproval(merchantId, limit));
    return rows.map(shipmentFromRow);
  }
}

async function findRecord(db: RawSql, scope: IdempotencyScope, now: Date): Promise<StoredRecord | null> {
  const [row] = await db.$queryRaw<{ id: string; fingerprint: string; snapshot: Uint8Array | null; errorReason: string | null }[]>`
    SELECT id::text AS id, fingerprint, snapshot, error_reason AS "errorReason" FROM idempotency_record
     WHERE ${scopeIs(scope)} AND expires_at > ${now}::timestamptz`;
  return row ? storedRecordOf(row) : null;
}

/** The record's unique key: one scope holds at most one record. */
const scopeIs = (scope: IdempotencyScope) =>
  Prisma.sql`operation = ${scope.operation} AND merchant_id = ${scope.merchantId}::uuid AND client_id = ${scope.clientId} AND key = ${scope.key}`;

function storedRecordOf(row: { id: string; fingerprint: string; snapshot: Uint8Array | null; errorReason: string | null }): StoredRecord {
  if (row.snapshot) return { fingerprint: row.fingerprint, outcome: { kind: "snapshot", snapshot: new Uint8Array(row.snapshot) } };
  if (row.errorReason === "SHIPMENT_ALREADY_ASSIGNED") return { fingerprint: row.fingerprint, outcome: { kind: "refused", reason: row.errorReason } };
  throw new Error(`idempotency record ${row.id} holds neither a snapshot nor a known reason`);
}

/**
 * A transaction-scoped advisory lock on a 64-bit hash of the scope, taken with the wait bound set
 * in the same statement: a duplicate waits for the first request's commit (then finds its record),
 * up to waitMs. A hash collision only serialises two unrelated keys, never mixes their records.
 * The bound stays for the rest of the transaction, which waits on nothing else of that length.
 */
async function lockScope(tx: Tx, scope: IdempotencyScope, waitMs: number): Promise<void> {
  const key = [scope.operation, scope.merchantId, scope.clientId, scope.key].join("|");
  const timeout = `${Math.max(1, Math.round(waitMs))}ms`;
  try {
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))::text FROM (SELECT set_config('lock_timeout', ${timeout}, true)) AS bound`;
  } catch (error) {
    if (sqlStateOf(error) === "55P03") throw new VersionConflictError("IDEMPOTENCY_KEY_IN_USE", "a request with this idempotency key is still being processed");
    throw error;
  }
}

/** The unique keys a create can still hit: another number, or a racing create of the same reference. */
function createFailure(error: unknown): unknown {
  if (sqlStateOf(error) === "55P03") return new VersionConflictError("IDEMPOTENCY_KEY_IN_USE", "a request with this idempotency key is still being processed");
  const constraint = violatedConstraintOf(error);
  if (constraint === "shipment_shipment_number_key") return new ShipmentNumberTakenError("shipment number taken", { cause: error });
  if (constraint === "shipment_merchant_id_external_reference_key") return new DuplicateReferenceError();
  return error;
}

class SqlShipmentTx implements ShipmentTx {
  constructor(
    private readonly tx: Tx,
    private readonly trackingLink: (shipmentId: string) => TrackingLink,
    private readonly attachedMediaRetentionMs: number,
  ) {}

  lockIdempotencyScope(scope: IdempotencyScope, waitMs: number): Promise<void> {
    return lockScope(this.tx, scope, waitMs);
  }

  findRecord(scope: IdempotencyScope, now: Date): Promise<StoredRecord | null> {
    return findRecord(this.tx, scope, now);
  }

  async saveRecord(scope: IdempotencyScope, record: Parameters<ShipmentTx["saveRecord"]>[1], now: Date, expiresAt: Date): Promise<void> {
    // An expired record not purged yet would hold the unique key: it no longer counts. Nor does a
    // refusal found here: a caller that replays refusals never gets this far, so this is one that
    // the caller set aside (a 409 stored under a cancel's derived key before decisions.md section 3
    // stopped storing those).
    await this.tx.$executeRaw`DELETE FROM idempotency_record WHERE ${scopeIs(scope)} AND (expires_at <= ${now}::timestamptz OR error_reason IS NOT NULL)`;
    await this.tx.$executeRaw`
      INSERT INTO idempotency_record (operation, merchant_id, client_id, key, fingerprint, shipment_id, snapshot, error_reason, created_at, expires_at)
      VALUES (${scope.operation}, ${scope.merchantId}::uuid, ${scope.clientId}, ${scope.key}, ${record.fingerprint}, ${record.shipmentId}::uuid,
        ${record.outcome.kind === "snapshot" ? Buffer.from(record.outcome.snapshot) : null}::bytea,
        ${record.outcome.kind === "refused" ? record.outcome.reason : null}, ${now}::timestamptz, ${expiresAt}::timestamptz)`;
  }

  /** The row lock and the read in one statement (they were two round trips). */
  async lockShipment(id: string): Promise<Shipment | null> {
    const [row] = await this.tx.$queryRaw<ShipmentRow[]>(selectShipmentForUpdate(id));
    return row ? shipmentFromRow(row) : null;
  }

  async record(change: ShipmentChange): Promise<void> {
    const { shipment } = change;
    const at = change.shipment.state === "READY_FOR_DISPATCH" && shipment.approvedAt ? shipment.approvedAt : new Date();
    // The version guard is belt and braces: callers hold the row lock. The terminal time is the
    // event's, so the projection and the fallback expire a link at the same instant.
    const terminal = isTerminal(shipment.state);
    const updated = await this.tx.$executeRaw`
      UPDATE shipment SET state = ${shipment.state}::shipment_state, version = ${shipment.version}::bigint, approved_at = ${shipment.approvedAt}::timestamptz,
        reason_code = ${shipment.reasonCode}, terminal_at = CASE WHEN ${terminal}::boolean THEN ${at}::timestamptz ELSE terminal_at END
       WHERE id = ${shipment.id}::uuid AND version = ${shipment.version - 1n}::bigint`;
    if (updated !== 1) throw new Error(`shipment ${shipment.id} was not at version ${shipment.version - 1n}`);
    // Its media (the merchant's and the driver's evidence, attached above in a delivery) now have a bounded life.
    if (terminal) {
      await this.tx.$executeRaw`UPDATE media_asset SET purge_after = ${new Date(at.getTime() + this.attachedMediaRetentionMs)}::timestamptz WHERE shipment_id = ${shipment.id}::uuid`;
    }
    await writeOutbox(this.tx, { topic: SHIPMENT_EVENTS_TOPIC, key: shipment.id, type: SHIPMENT_CHANGED_TYPE, payload: shipmentChangedPayload(change, at, this.trackingLink(shipment.id)) });
  }

  async pinLock(shipmentId: string): Promise<PinLock> {
    const [row] = await this.tx.$queryRaw<{ failures: number; locked_until: Date | null }[]>`
      SELECT delivery_pin_failures AS failures, delivery_pin_locked_until AS locked_until FROM shipment WHERE id = ${shipmentId}::uuid`;
    return { failures: row?.failures ?? 0, lockedUntil: row?.locked_until ?? null };
  }

  async savePinLock(shipmentId: string, lock: PinLock): Promise<void> {
    const updated = await this.tx.$executeRaw`
      UPDATE shipment SET delivery_pin_failures = ${lock.failures}::int, delivery_pin_locked_until = ${lock.lockedUntil}::timestamptz WHERE id = ${shipmentId}::uuid`;
    if (updated !== 1) throw new Error(`shipment ${shipmentId} does not exist`);
  }

  async attachDriverEvidence(input: { shipmentId: string; driverId: string; ids: readonly string[]; firstSortOrder: number }): Promise<EvidenceAsset[]> {
    if (input.ids.length === 0) return [];
    const ids = input.ids.map((id) => id.toLowerCase());
    return this.tx.$queryRaw<EvidenceAsset[]>`
      UPDATE media_asset m SET shipment_id = ${input.shipmentId}::uuid, sort_order = ${input.firstSortOrder}::int + v.ord::int - 1
      FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS v(id, ord)
      WHERE m.id = v.id AND m.driver_id = ${input.driverId}::uuid AND m.status = 'READY' AND m.shipment_id IS NULL
        AND m.purpose = ANY(${[...DRIVER_MEDIA_PURPOSES]}::text[])
      RETURNING m.id::text AS id, m.purpose AS purpose`;
  }
}
