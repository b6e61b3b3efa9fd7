/**
 * The webhook service's retention (decisions.md section 18) on its migrated schema, with a fake
 * clock: a delivery and its attempts go 30 days after the last attempt; a pending delivery, however
 * old, stays; processed-event records go after 14 days and parked events after 30.
 */
import { randomUUID } from "node:crypto";
import { createLogger } from "@tawsil/logging";
import { RetentionJob } from "@tawsil/retention";
import { rawQuery, type TestDatabase } from "@tawsil/testing";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { webhookRetention } from "../src/infra/retention-policies";
import { createWebhookDatabase, testConfig } from "./support";

const DAY = 86_400_000;
const NOW = new Date("2031-03-01T12:00:00.000Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const logger = createLogger({ service: "webhook-retention-test", level: "silent" });

let database: TestDatabase;
beforeAll(async () => {
  database = await createWebhookDatabase(inject("databaseAdminUrl"), "retention");
});
afterAll(async () => {
  await database?.drop();
});

const sql = <T = unknown>(query: string, ...values: unknown[]) => rawQuery<T>(PrismaClient, database.url, query, ...values);

async function delivery(endpointId: string, status: "PENDING" | "DELIVERED" | "EXHAUSTED", lastAttempt: Date, completed: boolean, attempts: number): Promise<string> {
  const id = randomUUID();
  await sql(
    `INSERT INTO webhook_delivery (id, endpoint_id, shipment_id, sequence, event_type, payload, status, attempts, next_attempt_at, occurred_at, created_at, first_attempt_at, completed_at)
     VALUES ($1, $2, $3, 1, 'shipment.updated', '{}', $4::delivery_status, $5, $6, $7, $7, $7, $8)`,
    id, endpointId, randomUUID(), status, attempts, lastAttempt, ago(61 * DAY), completed ? lastAttempt : null,
  );
  for (let n = 1; n <= attempts; n++) await sql(`INSERT INTO webhook_attempt (delivery_id, number, started_at, duration_ms, outcome) VALUES ($1, $2, $3, 10, 'HTTP_500')`, id, n, lastAttempt);
  return id;
}

describe("webhook retention", () => {
  it("deletes deliveries and their attempts 30 days after the last attempt, never a pending one", async () => {
    const endpointId = randomUUID();
    await sql(
      `INSERT INTO webhook_endpoint (id, merchant_id, url, status, version, secret_sealed, created_at, updated_at) VALUES ($1, $2, 'https://example.com/hook', 'ACTIVE', 1, '\\x00', $3, $3)`,
      endpointId, randomUUID(), ago(90 * DAY),
    );
    const expired = [
      await delivery(endpointId, "DELIVERED", ago(31 * DAY), true, 1),
      await delivery(endpointId, "EXHAUSTED", ago(45 * DAY), true, 3),
      await delivery(endpointId, "DELIVERED", ago(30 * DAY + 1), true, 2),
    ];
    const kept = [
      await delivery(endpointId, "DELIVERED", ago(29 * DAY), true, 1),
      await delivery(endpointId, "DELIVERED", ago(30 * DAY), true, 1),
      // Still being retried: first queued 60 days ago, never completed.
      await delivery(endpointId, "PENDING", ago(60 * DAY), false, 4),
    ];
    await sql(`INSERT INTO processed_event (consumer_group, event_id, processed_at) VALUES ('webhook.deliveries', $1, $2), ('webhook.deliveries', $3, $4)`, randomUUID(), ago(15 * DAY), randomUUID(), ago(13 * DAY));

    const registry = new Registry();
    const config = testConfig(database.url);
    const run = await new RetentionJob({ databaseUrl: database.url, policies: webhookRetention(config), batchSize: 2, clock: () => NOW, logger, registry }).run();

    expect(run.tables).toEqual([
      { table: "processed_event", deleted: 1, batches: 1, oldestAgeSeconds: (13 * DAY) / 1000 },
      { table: "parked_event", deleted: 0, batches: 1, oldestAgeSeconds: 0 },
      // 2 + 1: the second batch deletes fewer than its size.
      { table: "webhook_delivery", deleted: 3, batches: 2, oldestAgeSeconds: (30 * DAY) / 1000 },
    ]);
    const left = await sql<{ id: string; attempts: number }>(`SELECT d.id, (SELECT count(*)::int FROM webhook_attempt a WHERE a.delivery_id = d.id) AS attempts FROM webhook_delivery d ORDER BY d.id`);
    expect(left.map((row) => row.id).sort()).toEqual([...kept].sort());
    expect(left.map((row) => row.attempts).sort()).toEqual([1, 1, 4]);
    const orphans = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_attempt WHERE delivery_id = ANY($1::uuid[])`, expired);
    expect(orphans[0]?.n).toBe(0);
    const deleted = (await registry.getSingleMetric("retention_deleted_rows_total")?.get())?.values.map((v) => [v.labels.table, v.value]);
    expect(Object.fromEntries(deleted ?? [])).toEqual({ processed_event: 1, parked_event: 0, webhook_delivery: 3, webhook_attempt: 6 });
  });
});
