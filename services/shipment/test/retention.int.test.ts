/**
 * The shipment service's retention (decisions.md section 18) on its migrated schema, with a fake
 * clock: sent outbox rows go 7 days after they were sent, unsent ones never; idempotency records
 * once their 24 hours are over; shipments are kept.
 */
import { randomUUID } from "node:crypto";
import { createLogger } from "@tawsil/logging";
import { RetentionJob } from "@tawsil/retention";
import { createMetrics } from "@tawsil/rpc";
import { rawQuery, type TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { shipmentRetention } from "../src/infra/retention-policies";
import { createShipmentDatabase, testConfig } from "./support";
import { SHIPMENT_EVENTS_TOPIC } from "@tawsil/topology";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date("2031-03-01T12:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const logger = createLogger({ service: "shipment-retention-test", level: "silent" });

let database: TestDatabase;
beforeAll(async () => {
  database = await createShipmentDatabase(inject("databaseAdminUrl"), "retention");
});
afterAll(async () => {
  await database?.drop();
});

const sql = <T = unknown>(query: string, ...values: unknown[]) => rawQuery<T>(PrismaClient, database.url, query, ...values);

async function outbox(label: string, createdAt: Date, sentAt: Date | null): Promise<void> {
  await sql(`INSERT INTO outbox_event (event_id, topic, key, type, payload, created_at, sent_at) VALUES ($1::uuid, $2, $3, 't', '\\x00', $4, $5)`, randomUUID(), SHIPMENT_EVENTS_TOPIC, label, createdAt, sentAt);
}

async function record(key: string, expiresAt: Date): Promise<void> {
  await sql(
    `INSERT INTO idempotency_record (operation, merchant_id, client_id, key, fingerprint, error_reason, created_at, expires_at) VALUES ('create', $1::uuid, 'client-1', $2, 'f', 'SHIPMENT_ALREADY_ASSIGNED', $3, $4)`,
    randomUUID(), key, new Date(expiresAt.getTime() - DAY), expiresAt,
  );
}

describe("shipment retention", () => {
  it("deletes sent outbox rows after 7 days and idempotency records after their 24 hours, nothing unsent or younger", async () => {
    for (let i = 0; i < 3; i++) await outbox(`sent-8d-${i}`, ago(8 * DAY), ago(8 * DAY - i));
    await outbox("sent-6d", ago(8 * DAY), ago(6 * DAY));
    await outbox("unsent-30d", ago(30 * DAY), null);
    for (let i = 0; i < 4; i++) await record(`expired-${i}`, ago(HOUR + i));
    await record("live", new Date(NOW.getTime() + HOUR));

    const { registry } = createMetrics("shipment");
    const config = testConfig(database.url, { merchantUrl: "http://127.0.0.1:1", pricingUrl: "http://127.0.0.1:1" });
    const run = await new RetentionJob({ databaseUrl: database.url, policies: shipmentRetention(config), batchSize: 2, clock: () => NOW, logger, registry }).run();

    expect(run.tables).toEqual([
      { table: "outbox_event", deleted: 3, batches: 2, oldestAgeSeconds: (6 * DAY) / 1000 },
      { table: "processed_event", deleted: 0, batches: 1, oldestAgeSeconds: 0 },
      // 2 + 2 + 0; the live record's period started 23 hours ago.
      { table: "idempotency_record", deleted: 4, batches: 3, oldestAgeSeconds: (23 * HOUR) / 1000 },
    ]);
    expect((await sql<{ key: string }>(`SELECT key FROM outbox_event ORDER BY key`)).map((r) => r.key)).toEqual(["sent-6d", "unsent-30d"]);
    expect((await sql<{ key: string }>(`SELECT key FROM idempotency_record`)).map((r) => r.key)).toEqual(["live"]);
    const gauge = (await registry.getSingleMetric("retention_oldest_row_age_seconds")?.get())?.values.map((v) => [v.labels.table, v.value]);
    expect(Object.fromEntries(gauge ?? [])).toEqual({ outbox_event: (6 * DAY) / 1000, processed_event: 0, idempotency_record: (23 * HOUR) / 1000 });
  });
});
