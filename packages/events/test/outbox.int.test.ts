import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { create, toBinary } from "@bufbuild/protobuf";
import { createKafka, KafkaEventPublisher, OutboxRelay, writeOutbox } from "@tawsil/events";
import { createLogger } from "@tawsil/logging";
import { MoneySchema } from "@tawsil/proto/tawsil/common/v1/money_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureTopics } from "../../testing/src/infra/kafka";
import { createFixtureDatabase, fixtureClient, transactionsOf, type FixtureClient } from "./fixtures/fixture-db";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const brokers = inject("kafkaBrokers");
const adminUrl = inject("databaseAdminUrl");
const logger = createLogger({ service: "outbox-test", level: "silent" });
const run = randomUUID().slice(0, 8);
const topic = `test.outbox.${run}`;

const money = (amount: number) => ({
  topic,
  key: "account-1",
  type: "tawsil.common.v1.Money",
  payload: toBinary(MoneySchema, create(MoneySchema, { currency: "SAR", amount: String(amount) })),
});

interface Line {
  eventId?: string;
  applied?: boolean;
  published?: string[];
  started?: boolean;
}

/** Runs a fixture script in its own Node process and collects its JSON output lines. */
function runFixture(script: string, env: Record<string, string>): { child: ChildProcess; lines: Line[]; exited: Promise<NodeJS.Signals | number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(HERE, "fixtures", script)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: Line[] = [];
  let buffer = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      lines.push(JSON.parse(buffer.slice(0, newline)) as Line);
      buffer = buffer.slice(newline + 1);
    }
  });
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
  return { child, lines, exited };
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("transactional outbox through a real broker", () => {
  let producerUrl: string;
  let producerDb: FixtureClient;
  let consumerDb: FixtureClient;
  let consumer: ReturnType<typeof runFixture>;
  const drops: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const [producer, consuming] = await Promise.all([
      createFixtureDatabase(adminUrl, `tawsil_test_outbox_p_${run}`),
      createFixtureDatabase(adminUrl, `tawsil_test_outbox_c_${run}`),
    ]);
    drops.push(producer.drop, consuming.drop);
    producerUrl = producer.url;
    producerDb = fixtureClient(producer.url);
    consumerDb = fixtureClient(consuming.url);
    await ensureTopics([...brokers], [{ topic, numPartitions: 1 }]);
    consumer = runFixture("ledger-consumer.ts", {
      DATABASE_URL: consuming.url,
      KAFKA_BROKERS: brokers.join(","),
      TOPIC: topic,
      GROUP_ID: `test.ledger.${run}`,
    });
    await until(() => consumer.lines.some((l) => l.started), "the consumer process to start");
  });

  afterAll(async () => {
    consumer?.child.kill("SIGTERM");
    await consumer?.exited;
    await producerDb?.$disconnect();
    await consumerDb?.$disconnect();
    for (const drop of drops) await drop();
  });

  it("applies an event exactly once across a relay crash, and never publishes a rolled-back one", async () => {
    const tx = transactionsOf(producerDb);
    const committed = await tx((t) => writeOutbox(t, money(5)));
    let rolledBack = "";
    await expect(
      tx(async (t) => {
        rolledBack = await writeOutbox(t, money(1000));
        throw new Error("business rule failed: roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await producerDb.outboxEvent.count({ where: { eventId: rolledBack } })).toBe(0);

    // 1. A relay publishes the committed event and dies before marking it sent.
    const crashing = runFixture("crashing-relay.ts", { DATABASE_URL: producerUrl, KAFKA_BROKERS: brokers.join(",") });
    expect(await crashing.exited).toBe("SIGKILL");
    expect(crashing.lines).toEqual([{ published: [committed] }]);
    expect((await producerDb.outboxEvent.findUniqueOrThrow({ where: { eventId: committed } })).sentAt).toBeNull();

    // 2. The next relay publishes it again, marks it sent, then relays a later sentinel event.
    const kafka = createKafka({ clientId: "outbox-test", brokers: [...brokers], logger });
    const producer = kafka.producer({ maxInFlightRequests: 1 });
    const relay = new OutboxRelay({ runInTransaction: tx, publisher: new KafkaEventPublisher(producer), logger });
    expect(await relay.relayOnce()).toBe(1);
    const sentinel = await tx((t) => writeOutbox(t, money(7)));
    expect(await relay.relayOnce()).toBe(1);
    await producer.disconnect();
    expect(await producerDb.outboxEvent.count({ where: { sentAt: null } })).toBe(0);

    // 3. One partition keeps order: once the sentinel is applied, everything before it was seen.
    await until(() => consumer.lines.some((l) => l.eventId === sentinel), "the sentinel to be consumed");
    const deliveries = consumer.lines.filter((l) => l.eventId === committed);
    expect(deliveries).toEqual([
      { eventId: committed, applied: true },
      { eventId: committed, applied: false },
    ]);
    expect(consumer.lines.some((l) => l.eventId === rolledBack)).toBe(false);
    const ledger = await consumerDb.ledgerEntry.findMany({ orderBy: { id: "asc" } });
    expect(ledger.map((e) => [e.eventId, e.amount])).toEqual([
      [committed, 5],
      [sentinel, 7],
    ]);
    expect(await consumerDb.processedEvent.count()).toBe(2);
  });

  it("keeps every event once and in outbox order per key with three relays racing concurrent writers", async () => {
    const racedTopic = `test.outbox.race.${run}`;
    await ensureTopics([...brokers], [{ topic: racedTopic, numPartitions: 3 }]);
    const tx = transactionsOf(producerDb);
    const kafka = createKafka({ clientId: "outbox-race", brokers: [...brokers], logger });
    const producers = [0, 1, 2].map(() => kafka.producer({ maxInFlightRequests: 1 }));
    const relays = producers.map(
      (producer) => new OutboxRelay({ runInTransaction: tx, publisher: new KafkaEventPublisher(producer), logger, batchSize: 25, idleMs: 10 }),
    );
    relays.forEach((relay) => relay.start());

    const WRITERS = 4;
    const PER_WRITER = 100;
    await Promise.all(
      Array.from({ length: WRITERS }, (_, writer) =>
        (async () => {
          for (let i = 0; i < PER_WRITER; i++) {
            const key = `account-${(writer * PER_WRITER + i) % 5}`;
            await tx(async (t) => {
              // As an aggregate's row lock does: writes for one key commit one after another.
              await t.$executeRawUnsafe("SELECT pg_advisory_xact_lock(hashtext($1))", key);
              return writeOutbox(t, { ...money(i), topic: racedTopic, key });
            });
          }
        })(),
      ),
    );
    await until(async () => (await producerDb.outboxEvent.count({ where: { sentAt: null } })) === 0, "the outbox to drain");
    await Promise.all(relays.map((relay) => relay.stop()));
    await Promise.all(producers.map((producer) => producer.disconnect()));

    const rows = await producerDb.outboxEvent.findMany({ where: { topic: racedTopic }, orderBy: { seq: "asc" } });
    expect(rows).toHaveLength(WRITERS * PER_WRITER);
    const received: { key: string; eventId: string }[] = [];
    const reader = kafka.consumer({ groupId: `test.race-reader.${run}` });
    await reader.connect();
    await reader.subscribe({ topics: [racedTopic], fromBeginning: true });
    await reader.run({
      eachMessage: async ({ message }) => {
        received.push({ key: message.key?.toString() ?? "", eventId: message.headers?.["event-id"]?.toString() ?? "" });
      },
    });
    await until(() => received.length >= rows.length, "every raced event to be read");
    await new Promise((r) => setTimeout(r, 500)); // a duplicate would arrive right behind
    await reader.disconnect();

    expect(received).toHaveLength(rows.length);
    expect(new Set(received.map((r) => r.eventId)).size).toBe(rows.length);
    for (const key of new Set(rows.map((r) => r.key))) {
      expect(received.filter((r) => r.key === key).map((r) => r.eventId)).toEqual(rows.filter((r) => r.key === key).map((r) => r.eventId));
    }
  });
});
