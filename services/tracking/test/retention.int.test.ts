/**
 * The tracking service's retention (decisions.md section 18) on its migrated schema, with a fake
 * clock: a projection goes whole 90 days after its terminal state; a driver's fix 30 days after its
 * shipment's job ended (not after the fix itself), never while the shipment is still going.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { createLogger } from "@tawsil/logging";
import { RetentionJob } from "@tawsil/retention";
import { createMigratedDatabase, rawQuery, type TestDatabase } from "@tawsil/testing";
import { createMetrics } from "@tawsil/rpc";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { readConfig } from "../src/config";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { trackingRetention } from "../src/infra/retention-policies";

const DAY = 86_400_000;
const NOW = new Date("2031-03-01T12:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const logger = createLogger({ service: "tracking-retention-test", level: "silent" });
const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");

let database: TestDatabase;
beforeAll(async () => {
  database = await createMigratedDatabase(inject("databaseAdminUrl"), `tracking_test_retention_${randomUUID().slice(0, 8)}`, MIGRATIONS);
});
afterAll(async () => {
  await database?.drop();
});

const sql = <T = unknown>(query: string, ...values: unknown[]) => rawQuery<T>(PrismaClient, database.url, query, ...values);

/** A projection with its history, assignment and the driver's last fix; returns its id. */
async function projection(label: string, terminal: Date | null, fixAt: Date | null): Promise<string> {
  const id = randomUUID();
  await sql(
    `INSERT INTO tracked_shipment (shipment_id, merchant_id, state, version, pickup_latitude_micro, pickup_longitude_micro, destination_latitude_micro, destination_longitude_micro, city_code, terminal_at)
     VALUES ($1::uuid, $2::uuid, $3, 5, 1, 1, 2, 2, 'RUH', $4)`,
    id, randomUUID(), terminal ? "DELIVERED" : "IN_TRANSIT", terminal,
  );
  await sql(`INSERT INTO status_change (shipment_id, status, occurred_at) VALUES ($1::uuid, 'created', $2), ($1::uuid, $3, $2)`, id, ago(200 * DAY), label);
  await sql(`INSERT INTO shipment_assignment (shipment_id, driver_ref, accepted_at) VALUES ($1::uuid, 'driver-1', $2)`, id, ago(200 * DAY));
  if (fixAt) await sql(`INSERT INTO driver_fix (shipment_id, driver_ref, latitude_micro, longitude_micro, accuracy_metres, recorded_at) VALUES ($1::uuid, 'driver-1', 1, 1, 5, $2)`, id, fixAt);
  return id;
}

describe("tracking retention", () => {
  it("deletes projections 90 days after their terminal state and fixes 30 days after the job ended, in batches", async () => {
    const expired = [];
    for (let i = 0; i < 5; i++) expired.push(await projection(`old-${i}`, ago(91 * DAY + i), ago(91 * DAY + i + 60_000)));
    const recentEnd = await projection("recent", ago(89 * DAY), ago(89 * DAY + 60_000)); // kept; its fix goes
    const longJob = await projection("long-job", ago(29 * DAY), ago(31 * DAY)); // fix 31 days old, but the job ended 29 days ago
    const going = await projection("going", null, ago(40 * DAY)); // still in transit: kept with its fix
    const orphan = randomUUID(); // a fix of a shipment never projected goes by its own time
    await sql(`INSERT INTO driver_fix (shipment_id, driver_ref, latitude_micro, longitude_micro, accuracy_metres, recorded_at) VALUES ($1::uuid, 'driver-2', 1, 1, 5, $2)`, orphan, ago(31 * DAY));

    const { registry } = createMetrics("tracking");
    const config = readConfig({ PORT: "0", DATABASE_URL: database.url, KAFKA_BROKERS: "127.0.0.1:9092", SHIPMENT_SERVICE_URL: "http://127.0.0.1:1" });
    const run = await new RetentionJob({ databaseUrl: database.url, policies: trackingRetention(config), batchSize: 2, clock: () => NOW, logger, registry }).run();

    expect(run.tables).toEqual([
      { table: "processed_event", deleted: 0, batches: 1, oldestAgeSeconds: 0 },
      { table: "parked_event", deleted: 0, batches: 1, oldestAgeSeconds: 0 },
      // The 5 expired projections' fixes, the recent one's, the orphan: 2 + 2 + 2 + 1.
      { table: "driver_fix", deleted: 7, batches: 4, oldestAgeSeconds: (40 * DAY) / 1000 },
      // 2 + 2 + 1.
      { table: "tracked_shipment", deleted: 5, batches: 3, oldestAgeSeconds: (89 * DAY) / 1000 },
    ]);
    const shipments = await sql<{ id: string }>(`SELECT shipment_id::text AS id FROM tracked_shipment`);
    expect(shipments.map((r) => r.id).sort()).toEqual([recentEnd, longJob, going].sort());
    const fixes = await sql<{ id: string }>(`SELECT shipment_id::text AS id FROM driver_fix`);
    expect(fixes.map((r) => r.id).sort()).toEqual([longJob, going].sort());
    for (const table of ["status_change", "shipment_assignment"]) {
      const left = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE shipment_id = ANY($1::uuid[])`, expired);
      expect(left[0]?.n, table).toBe(0);
      const kept = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
      expect(kept[0]?.n, table).toBe(table === "status_change" ? 6 : 3);
    }
    const deleted = (await registry.getSingleMetric("retention_deleted_rows_total")?.get())?.values.map((v) => [v.labels.table, v.value]);
    expect(Object.fromEntries(deleted ?? [])).toEqual({ processed_event: 0, parked_event: 0, driver_fix: 7, tracked_shipment: 5, status_change: 10, shipment_assignment: 5 });
  });
});
