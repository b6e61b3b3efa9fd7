import { withTransaction, type TransactionClient } from "@tawsil/db";
import { VersionConflictError } from "@tawsil/errors";
import { writeOutbox } from "@tawsil/events";
import { ShipmentNumberTakenError, type IdempotencyScope, type ShipmentStore, type ShipmentTx, type StoredRecord } from "../app/ports";
import type { Position } from "../domain/cursor";
import { DuplicateReferenceError } from "../domain/errors";
import type { ShipmentState } from "../domain/lifecycle";
import type { Shipment, ShipmentChange } from "../domain/shipment";
import { sqlStateOf, uniqueViolationTarget } from "./prisma-errors";
import type { PrismaClient } from "./prisma/generated/client";
import { SHIPMENT_CHANGED_TYPE, SHIPMENT_TOPIC, shipmentChangedPayload, snapshotOf } from "./shipment-message";
import { shipmentFromRow, shipmentToRow } from "./shipment-rows";

type Tx = TransactionClient<PrismaClient>;
type Client = PrismaClient | Tx;

const ITEMS = { items: { orderBy: { position: "asc" } } } as const;

export interface StoreOptions {
  /** How long a transaction may wait for a pooled connection: concurrent duplicates queue for it. */
  readonly maxWaitMs: number;
  /** How long one transaction may run, waiting on the idempotency lock included. */
  readonly timeoutMs: number;
}

/** Shipments, their items, idempotency records and the outbox, in the service's own database. */
export class PrismaShipmentStore implements ShipmentStore {
  constructor(
    private readonly db: PrismaClient,
    private readonly options: StoreOptions,
  ) {}

  inTransaction<R>(fn: (tx: ShipmentTx) => Promise<R>): Promise<R> {
    return withTransaction(this.db, (tx) => fn(new PrismaShipmentTx(tx)), { maxWaitMs: this.options.maxWaitMs, timeoutMs: this.options.timeoutMs });
  }

  findRecord(scope: IdempotencyScope, now: Date): Promise<StoredRecord | null> {
    return findRecord(this.db, scope, now);
  }

  async findById(id: string): Promise<Shipment | null> {
    const row = await this.db.shipment.findUnique({ where: { id }, include: ITEMS });
    return row ? shipmentFromRow(row) : null;
  }

  /**
   * `created_at <= c AND (created_at < c OR id < i)`: the first conjunct bounds the index range
   * scan on (merchant_id, [state,] created_at DESC, id DESC), the second only filters the rows
   * sharing the boundary millisecond, so no page reads the rows before it.
   */
  async listPage(query: { merchantId: string; state: ShipmentState | null; externalReference: string | null }, after: Position | null, limit: number): Promise<Shipment[]> {
    const rows = await this.db.shipment.findMany({
      where: {
        merchantId: query.merchantId,
        ...(query.state === null ? {} : { state: query.state }),
        ...(query.externalReference === null ? {} : { externalReference: query.externalReference }),
        ...(after ? { createdAt: { lte: after.createdAt }, OR: [{ createdAt: { lt: after.createdAt } }, { id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: limit,
      include: ITEMS,
    });
    return rows.map(shipmentFromRow);
  }

  snapshotOf(shipment: Shipment): Uint8Array {
    return snapshotOf(shipment);
  }

  /** In batches, so a large backlog never holds one long delete. */
  async purgeExpired(now: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.db.$executeRawUnsafe(
        "DELETE FROM idempotency_record WHERE id IN (SELECT id FROM idempotency_record WHERE expires_at <= $1 LIMIT 1000)",
        now,
      );
      total += deleted;
      if (deleted < 1000) return total;
    }
  }
}

async function findRecord(db: Client, scope: IdempotencyScope, now: Date): Promise<StoredRecord | null> {
  const row = await db.idempotencyRecord.findFirst({ where: { ...scope, expiresAt: { gt: now } } });
  if (!row) return null;
  if (row.snapshot) return { fingerprint: row.fingerprint, outcome: { kind: "snapshot", snapshot: new Uint8Array(row.snapshot) } };
  if (row.errorReason === "SHIPMENT_ALREADY_ASSIGNED") return { fingerprint: row.fingerprint, outcome: { kind: "refused", reason: row.errorReason } };
  throw new Error(`idempotency record ${row.id} holds neither a snapshot nor a known reason`);
}

class PrismaShipmentTx implements ShipmentTx {
  constructor(private readonly tx: Tx) {}

  /**
   * A transaction-scoped advisory lock on a 64-bit hash of the scope: a duplicate waits for the
   * first request's commit (then finds its record), up to waitMs. A hash collision only
   * serialises two unrelated keys, never mixes their records.
   */
  async lockIdempotencyScope(scope: IdempotencyScope, waitMs: number): Promise<void> {
    await this.tx.$executeRawUnsafe(`SET LOCAL lock_timeout = '${Math.max(1, Math.round(waitMs))}ms'`);
    try {
      await this.tx.$executeRawUnsafe(
        "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
        [scope.operation, scope.merchantId, scope.clientId, scope.key].join("|"),
      );
    } catch (error) {
      if (sqlStateOf(error) === "55P03") {
        throw new VersionConflictError("IDEMPOTENCY_KEY_IN_USE", "a request with this idempotency key is still being processed");
      }
      throw error;
    }
    await this.tx.$executeRawUnsafe("SET LOCAL lock_timeout TO DEFAULT");
  }

  findRecord(scope: IdempotencyScope, now: Date): Promise<StoredRecord | null> {
    return findRecord(this.tx, scope, now);
  }

  async saveRecord(scope: IdempotencyScope, record: Parameters<ShipmentTx["saveRecord"]>[1], now: Date, expiresAt: Date): Promise<void> {
    // An expired record not purged yet would hold the unique key: it no longer counts.
    await this.tx.idempotencyRecord.deleteMany({ where: { ...scope, expiresAt: { lte: now } } });
    await this.tx.idempotencyRecord.create({
      data: {
        ...scope,
        fingerprint: record.fingerprint,
        shape: record.shape,
        shipmentId: record.shipmentId,
        snapshot: record.outcome.kind === "snapshot" ? Buffer.from(record.outcome.snapshot) : null,
        errorReason: record.outcome.kind === "refused" ? record.outcome.reason : null,
        createdAt: now,
        expiresAt,
      },
    });
  }

  async referenceExists(merchantId: string, externalReference: string): Promise<boolean> {
    return (await this.tx.shipment.count({ where: { merchantId, externalReference } })) > 0;
  }

  async insert(shipment: Shipment): Promise<void> {
    try {
      await this.tx.shipment.create({ data: shipmentToRow(shipment) });
    } catch (error) {
      const target = uniqueViolationTarget(error);
      if (target?.includes("shipment_number") || target?.includes("shipmentNumber")) throw new ShipmentNumberTakenError("shipment number taken", { cause: error });
      if (target !== null) throw new DuplicateReferenceError();
      throw error;
    }
  }

  async lockShipment(id: string): Promise<Shipment | null> {
    const locked = await this.tx.$queryRawUnsafe<{ id: string }[]>("SELECT id::text FROM shipment WHERE id = $1::uuid FOR UPDATE", id);
    if (locked.length === 0) return null;
    const row = await this.tx.shipment.findUnique({ where: { id }, include: ITEMS });
    return row ? shipmentFromRow(row) : null;
  }

  async record(change: ShipmentChange, options: { inserted?: boolean } = {}): Promise<void> {
    const { shipment } = change;
    if (!options.inserted) {
      // The version guard is belt and braces: callers hold the row lock or inserted the row.
      const updated = await this.tx.shipment.updateMany({
        where: { id: shipment.id, version: shipment.version - 1n },
        data: { state: shipment.state, version: shipment.version, approvedAt: shipment.approvedAt, reasonCode: shipment.reasonCode },
      });
      if (updated.count !== 1) throw new Error(`shipment ${shipment.id} was not at version ${shipment.version - 1n}`);
    }
    const at = options.inserted ? shipment.createdAt : change.shipment.state === "READY_FOR_DISPATCH" && shipment.approvedAt ? shipment.approvedAt : new Date();
    await writeOutbox(this.tx, { topic: SHIPMENT_TOPIC, key: shipment.id, type: SHIPMENT_CHANGED_TYPE, payload: shipmentChangedPayload(change, at) });
  }
}
