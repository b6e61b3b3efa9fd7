/**
 * Webhook delivery throughput and event-to-first-attempt lag: the webhook service in-process on
 * the test PostgreSQL, its engine sending to a local receiver, events queued in waves through the
 * consumer's own queue writer (as the Kafka consumer does, one transaction per wave):
 *   tsx services/webhook/bench/deliveries.ts [events] [waves]   (DATABASE_ADMIN_URL overrides the local server)
 * Figures to report (target: >= 500 deliveries/s, p99 lag <= 1 s), not a test.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { withTransaction } from "@tawsil/db";
import { createLogger } from "@tawsil/logging";
import { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { ensurePostgres } from "../../../packages/testing/src/infra/postgres";
import { enqueueShipmentEvent } from "../src/app/enqueue-event";
import { SqlQueueWriter } from "../src/infra/sql-delivery-queue";
import { startWebhookService } from "../src/server";
import { createWebhookDatabase, startReceiver, testConfig } from "../test/support";

const postgres = await ensurePostgres(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {});
const events = Number(process.argv[2] ?? 5000);
const waves = Number(process.argv[3] ?? 50);
const db = await createWebhookDatabase(postgres.adminUrl, "bench");
const receiver = await startReceiver();
const logger = createLogger({ service: "webhook-bench", level: "warn" });
const config = testConfig(db.url, { LOG_LEVEL: "warn", WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"), WEBHOOK_ATTEMPT_TIMEOUT_MS: "15000", DATABASE_POOL_SIZE: "20" });
const service = await startWebhookService(config, logger, { engine: false });
try {
  const client = createPeerClient(WebhookService, service.url, { timeoutMs: 30_000 });
  const merchants = await Promise.all(Array.from({ length: 10 }, async () => {
    const merchantId = randomUUID();
    await client.registerEndpoint({ merchantId, url: receiver.url });
    return merchantId;
  }));
  const queue = async (count: number, wave: number) => {
    const now = new Date();
    await withTransaction(service.parts.database.client, async (tx) => {
      const writer = new SqlQueueWriter(tx);
      for (let i = 0; i < count; i++) {
        await enqueueShipmentEvent(writer, { shipmentId: randomUUID(), merchantId: merchants[i % merchants.length]!, reference: `B-${wave}-${i}`, status: "CREATED", version: 1n, occurredAt: now, trackingUrl: "https://t.example/t/x", reasonCode: "" }, now);
      }
    }, { timeoutMs: 120_000 });
  };
  const drained = async (total: number) => {
    while (receiver.requests.length < total) await new Promise((r) => setTimeout(r, 10));
  };
  // Throughput: a backlog of `events` drained by the engine alone.
  await queue(events, 0);
  const started = Date.now();
  service.parts.engine.start();
  await drained(events);
  const seconds = (Date.now() - started) / 1000;
  // Lag: `waves` waves of 20 events, 100 ms apart, while the engine runs (the consumer wakes it).
  const since = new Date();
  for (let w = 1; w <= waves; w++) {
    await queue(20, w);
    service.parts.engine.wake();
    await new Promise((r) => setTimeout(r, 100));
  }
  await drained(events + waves * 20);
  const lags = (await service.parts.database.client.$queryRawUnsafe<{ ms: number }[]>(
    `SELECT extract(epoch FROM (first_attempt_at - occurred_at)) * 1000 AS ms FROM webhook_delivery WHERE created_at >= $1 ORDER BY 1`,
    since,
  )).map((r) => Number(r.ms));
  const pct = (p: number) => lags[Math.min(lags.length - 1, Math.floor((lags.length * p) / 100))]!.toFixed(0);
  process.stdout.write(`${events} queued deliveries drained in ${seconds.toFixed(1)} s: ${(events / seconds).toFixed(0)}/s; event to first attempt over ${lags.length} live events: p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms\n`);
} finally {
  await service.close();
  await receiver.close();
  await db.drop();
}
