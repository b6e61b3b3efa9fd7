/**
 * Observability of the event path through a real broker: the trace a request starts is carried by
 * the outbox row and the Kafka record's headers into the consumer's handler (one trace from the
 * gateway's request to the webhook attempt), and the outbox's lag is exported for the alerts.
 */
import { randomUUID } from "node:crypto";
import { trace } from "@opentelemetry/api";
import { createKafka, IdempotentConsumer, KafkaEventPublisher, OUTBOX_LAG_METRIC, OutboxRelay, registerOutboxLag, writeOutbox } from "@tawsil/events";
import { createLogger, currentTraceId, initTracing } from "@tawsil/logging";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureTopics } from "../../testing/src/infra/kafka";
import { createFixtureDatabase, fixtureClient, transactionsOf, type FixtureClient } from "./fixtures/fixture-db";

const brokers = inject("kafkaBrokers");
const adminUrl = inject("databaseAdminUrl");
const logger = createLogger({ service: "trace-test", level: "silent" });
const run = randomUUID().slice(0, 8);
const topic = `test.trace.${run}`;
const event = () => ({ topic, key: "shipment-1", type: "test.Created", payload: new Uint8Array([1, 2, 3]) });

let db: FixtureClient;
let drop: () => Promise<void>;

beforeAll(async () => {
  initTracing(); // as every process's main does: W3C propagation, AsyncLocalStorage context
  const database = await createFixtureDatabase(adminUrl, `tawsil_test_trace_${run}`);
  drop = database.drop;
  db = fixtureClient(database.url);
  await ensureTopics([...brokers], [{ topic, numPartitions: 1 }]);
});

afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

async function lagOf(registry: Registry): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === OUTBOX_LAG_METRIC);
  return Number(metric?.values[0]?.value);
}

describe("events carry the trace and report their lag", () => {
  it("a consumer's handler runs in the trace of the request that wrote the event", async () => {
    const tx = transactionsOf(db);
    const kafka = createKafka({ clientId: "trace-test", brokers: [...brokers], logger });
    // The request: a span (as the gateway's and the RPC server's are) inside which the event is written.
    const requestTrace = await trace.getTracer("test").startActiveSpan("POST /v2/shipments", async (span) => {
      await tx((t) => writeOutbox(t, event()));
      span.end();
      return span.spanContext().traceId;
    });
    expect(requestTrace).toMatch(/^[0-9a-f]{32}$/);
    const [row] = await db.outboxEvent.findMany();
    expect((row?.headers as Record<string, string>).traceparent).toContain(requestTrace);

    const producer = kafka.producer({ maxInFlightRequests: 1 });
    expect(await new OutboxRelay({ runInTransaction: tx, publisher: new KafkaEventPublisher(producer), logger }).relayOnce()).toBe(1);
    await producer.disconnect();

    const seen: (string | undefined)[] = [];
    const consumer = new IdempotentConsumer({
      kafka, groupId: `test.trace.${run}`, topics: [topic], runInTransaction: tx, logger,
      handler: async () => { seen.push(currentTraceId()); },
    });
    await consumer.start();
    const deadline = Date.now() + 60_000;
    while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await consumer.stop();
    expect(seen).toEqual([requestTrace]);
  });

  it("exports the age of the oldest unpublished event, 0 once the relay caught up", async () => {
    const tx = transactionsOf(db);
    const registry = new Registry();
    registerOutboxLag(registry, tx);
    expect(await lagOf(registry)).toBe(0);
    const eventId = await tx((t) => writeOutbox(t, event()));
    // created_at keeps milliseconds: now() rounded up to the next one read 89.999963 s when the next statement came within it.
    await db.$executeRawUnsafe(`UPDATE outbox_event SET created_at = date_trunc('milliseconds', now()) - interval '90 seconds' WHERE event_id = $1::uuid`, eventId);
    expect(await lagOf(registry)).toBeGreaterThanOrEqual(90);
    const producer = createKafka({ clientId: "lag-test", brokers: [...brokers], logger }).producer({ maxInFlightRequests: 1 });
    await new OutboxRelay({ runInTransaction: tx, publisher: new KafkaEventPublisher(producer), logger }).relayOnce();
    await producer.disconnect();
    expect(await lagOf(registry)).toBe(0);
  });

  it("reports NaN, not 0, when it cannot read the outbox", async () => {
    const registry = new Registry();
    registerOutboxLag(registry, <R>(): Promise<R> => Promise.reject(new Error("database down")));
    expect(await lagOf(registry)).toBeNaN();
  });
});
