import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase, withTransaction, type ServiceDatabase } from "@tawsil/db";
import type { SqlClient } from "@tawsil/events";
import { createLogger } from "@tawsil/logging";
import { createMigratedDatabase, type TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { applyAssignmentFact, applyFacts, applyFixFact, applyShipmentFact, type Fact } from "../src/app/apply-facts";
import type { ShipmentFact } from "../src/app/ports";
import type { ShipmentState } from "../src/domain/lifecycle";
import { SqlProjectionBatchWriter, SqlProjectionWriter } from "../src/infra/projection-writer";
import { PrismaClient } from "../src/infra/prisma/generated/client";

/**
 * The consumer applies what one fetch brought set-based (applyFacts and SqlProjectionBatchWriter):
 * the projection tables must end exactly as if each event had been applied alone, in order,
 * whatever a batch holds: several versions of one shipment in and out of order, a tracking code
 * hash only on some versions, repeated statuses, ties between assignments and between fixes.
 */
const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");
const logger = createLogger({ service: "tracking-batch-test", level: "silent" });
const databases: { test: TestDatabase; db: ServiceDatabase<PrismaClient> }[] = [];

async function database(label: string): Promise<PrismaClient> {
  const test = await createMigratedDatabase(inject("databaseAdminUrl"), `tracking_batch_${label}_${randomUUID().slice(0, 8)}`, MIGRATIONS);
  const db = openDatabase(PrismaClient, { url: test.url, maxConnections: 2, logger });
  databases.push({ test, db });
  return db.client;
}

let oneByOne: PrismaClient;
let batched: PrismaClient;

beforeAll(async () => {
  [oneByOne, batched] = await Promise.all([database("single"), database("batch")]);
});
afterAll(async () => {
  for (const { test, db } of databases) {
    await db.close();
    await test.drop();
  }
});

const at = (second: number) => new Date(Date.UTC(2026, 10, 27, 8, 0, second));
const hash = (n: number) => new Uint8Array(32).fill(n);

function shipment(shipmentId: string, version: number, state: ShipmentState, second: number, codeHash: Uint8Array = new Uint8Array()): Fact {
  const fact: ShipmentFact = {
    shipmentId,
    merchantId: "00000000-0000-4000-8000-000000000001",
    state,
    version: BigInt(version),
    pickup: { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 },
    destination: { latitudeMicro: 24_774_265 + version, longitudeMicro: 46_738_586 },
    cityCode: "RUH",
    reasonCode: null,
    trackingCodeSha256: codeHash,
    occurredAt: at(second),
  };
  return { kind: "shipment", fact };
}

const accepted = (shipmentId: string, driverRef: string, second: number): Fact => ({ kind: "assignment", change: "ACCEPTED", fact: { shipmentId, driverRef, occurredAt: at(second) } });
const offered = (shipmentId: string, driverRef: string, second: number): Fact => ({ kind: "assignment", change: "OFFERED", fact: { shipmentId, driverRef, occurredAt: at(second) } });
const fix = (shipmentId: string, driverRef: string, second: number, latitudeMicro: number): Fact => ({
  kind: "fix",
  fact: { shipmentId, driverRef, position: { latitudeMicro, longitudeMicro: 46_700_000 }, accuracyMetres: 10, recordedAt: at(second) },
});

async function applyOneByOne(facts: readonly Fact[]): Promise<void> {
  for (const item of facts) {
    await withTransaction(oneByOne, async (tx) => {
      const writer = new SqlProjectionWriter(tx);
      if (item.kind === "shipment") await applyShipmentFact(writer, item.fact);
      else if (item.kind === "assignment") await applyAssignmentFact(writer, item.change, item.fact);
      else await applyFixFact(writer, item.fact);
    });
  }
}

async function applyBatched(facts: readonly Fact[]): Promise<void> {
  await withTransaction(batched, (tx) => applyFacts(new SqlProjectionBatchWriter(tx), facts));
}

async function tables(db: PrismaClient) {
  const query = (sql: string) => db.$queryRawUnsafe<Record<string, unknown>[]>(sql);
  return {
    shipments: await query(
      `SELECT shipment_id::text, merchant_id::text, encode(tracking_code_sha256, 'hex') AS code, state, version::text, pickup_latitude_micro, pickup_longitude_micro,
         destination_latitude_micro, destination_longitude_micro, city_code, terminal_at FROM tracked_shipment ORDER BY shipment_id`,
    ),
    statuses: await query(`SELECT shipment_id::text, status, occurred_at FROM status_change ORDER BY shipment_id, status`),
    assignments: await query(`SELECT shipment_id::text, driver_ref, accepted_at FROM shipment_assignment ORDER BY shipment_id`),
    fixes: await query(`SELECT shipment_id::text, driver_ref, latitude_micro, longitude_micro, accuracy_metres, recorded_at FROM driver_fix ORDER BY shipment_id, driver_ref`),
  };
}

describe("set-based projection writes", () => {
  it("end as the one-by-one writes do, batch after batch", async () => {
    const [s1, s2, s3, s4, s5] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const batches: Fact[][] = [
      // A create's two events together; another shipment's three versions, the code hash on the first only.
      [shipment(s1, 1, "PENDING_APPROVAL", 1, hash(1)), shipment(s1, 2, "READY_FOR_DISPATCH", 2), shipment(s2, 1, "READY_FOR_DISPATCH", 1, hash(2)), shipment(s2, 2, "OFFERED", 3), shipment(s2, 3, "ACCEPTED", 4)],
      // Every version with its code hash (a create's events): folded into one row, inserted with the first's columns.
      [shipment(s5, 1, "PENDING_APPROVAL", 1, hash(5)), shipment(s5, 2, "READY_FOR_DISPATCH", 2, hash(5)), shipment(s5, 1, "PENDING_APPROVAL", 1, hash(5)), shipment(s5, 3, "OFFERED", 3, hash(5))],
      [shipment(s5, 5, "ACCEPTED", 5), shipment(s5, 4, "OFFERED", 4, hash(6)), shipment(s5, 6, "PICKED_UP", 6, hash(5)), shipment(s5, 7, "OUT_FOR_DELIVERY", 7)],
      // Out of order within a batch (an older version after a newer one), a terminal state, a version already stored.
      [shipment(s3, 2, "CANCELLED", 9, hash(3)), shipment(s3, 1, "READY_FOR_DISPATCH", 5), shipment(s1, 2, "READY_FOR_DISPATCH", 1), shipment(s1, 3, "OFFERED", 6)],
      // Assignments: a tie keeps the first, a newer one wins, offers name nobody; fixes likewise, one without a shipment.
      [accepted(s2, "driver-a", 10), accepted(s2, "driver-b", 10), offered(s1, "driver-c", 11), accepted(s4, "driver-d", 12), accepted(s4, "driver-e", 11)],
      [fix(s2, "driver-a", 20, 1), fix(s2, "driver-a", 20, 2), fix(s2, "driver-a", 19, 3), fix("", "driver-z", 30, 4), fix(s2, "driver-b", 21, 5)],
      // Later batches against stored rows: newer and older versions, an earlier time for a status, an older assignment and fix.
      [shipment(s2, 4, "PICKED_UP", 22), shipment(s2, 2, "OFFERED", 2), shipment(s1, 4, "READY_FOR_DISPATCH", 7, hash(9)), shipment(s1, 5, "DELIVERED", 8), accepted(s2, "driver-f", 9), fix(s2, "driver-a", 25, 6), fix(s2, "driver-a", 18, 7)],
    ];
    for (const batch of batches) {
      await applyOneByOne(batch);
      await applyBatched(batch);
    }
    const expected = await tables(oneByOne);
    expect(expected.shipments).toHaveLength(4);
    expect(expected.assignments).toHaveLength(2);
    expect(expected.fixes).toHaveLength(2);
    expect(await tables(batched)).toEqual(expected);
  });

  it("write a shipment's row and its status history in one statement when an event comes alone", async () => {
    const db = await database("count");
    const id = randomUUID();
    let statements = 0;
    await withTransaction(db, async (tx) => {
      const counted: SqlClient = {
        $executeRawUnsafe: (query, ...values) => (statements++, tx.$executeRawUnsafe(query, ...values)),
        $queryRawUnsafe: (query, ...values) => (statements++, tx.$queryRawUnsafe(query, ...values)),
      };
      const item = shipment(id, 1, "READY_FOR_DISPATCH", 1, hash(1));
      if (item.kind === "shipment") await applyShipmentFact(new SqlProjectionWriter(counted), item.fact);
    });
    expect(statements).toBe(1);
    const written = await tables(db);
    expect(written.shipments.map((row) => [row.shipment_id, row.version])).toEqual([[id, "1"]]);
    expect(written.statuses.map((row) => [row.shipment_id, row.occurred_at])).toEqual([[id, at(1)]]);
  });
});
