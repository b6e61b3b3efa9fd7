/**
 * The consumer applies what one fetch brought in a few transactions, not one per event, and keeps
 * every guarantee of the one-by-one path: each event once, in partition order, a failing event
 * retried alone while the events before it stay applied, a second copy of an event skipped.
 */
import { randomUUID } from "node:crypto";
import { createKafka, EVENT_HEADERS, IdempotentConsumer, type ConsumedEvent, type SqlClient } from "@tawsil/events";
import { createLogger } from "@tawsil/logging";
import type { Producer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureTopics } from "../../testing/src/infra/kafka";
import { createFixtureDatabase, fixtureClient, transactionsOf, type FixtureClient } from "./fixtures/fixture-db";

const brokers = inject("kafkaBrokers");
const adminUrl = inject("databaseAdminUrl");
const logger = createLogger({ service: "batch-test", level: "silent" });
const run = randomUUID().slice(0, 8);
const kafka = createKafka({ clientId: "batch-test", brokers: [...brokers], logger });

let db: FixtureClient;
let drop: () => Promise<void>;

beforeAll(async () => {
  const database = await createFixtureDatabase(adminUrl, `tawsil_test_batches_${run}`);
  drop = database.drop;
  db = fixtureClient(database.url);
});
afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

interface Sent {
  readonly eventId: string;
  readonly amount: number;
}

/** Sends the events to a new one-partition topic in one request, before any consumer reads it. */
async function sendAll(topic: string, events: readonly Sent[]): Promise<void> {
  await ensureTopics([...brokers], [{ topic, numPartitions: 1 }]);
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic,
    messages: events.map(({ eventId, amount }) => ({ key: "account-1", value: Buffer.from(String(amount)), headers: { [EVENT_HEADERS.id]: eventId, [EVENT_HEADERS.type]: "test.Amount" } })),
  });
  await producer.disconnect();
}

/** The amount an event carries (its payload is the number's text). */
const amountOf = (event: ConsumedEvent) => Number(Buffer.from(event.payload).toString());

/** The fixture's transactions, counted as the consumer opens them. */
function countedTransactions() {
  const tx = transactionsOf(db);
  const counted: { opened: number; run: typeof tx } = {
    opened: 0,
    run: (fn) => {
      counted.opened++;
      return tx(fn);
    },
  };
  return counted;
}

/** Sends one event and waits (at most 30 s) until `delivered` says the consumer had it: the next fetch brings it alone. */
async function sendAlone(producer: Producer, topic: string, event: Sent, delivered: () => boolean): Promise<void> {
  await producer.send({ topic, messages: [{ key: "account-1", value: Buffer.from(String(event.amount)), headers: { [EVENT_HEADERS.id]: event.eventId, [EVENT_HEADERS.type]: "test.Amount" } }] });
  const deadline = Date.now() + 30_000;
  while (!delivered() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
}

/** Consumes the topic into the ledger until `expected` rows are there; counts the consumer's transactions. */
async function consume(topic: string, expected: number, failOnceOn?: string, batched = false, ignores?: (event: ConsumedEvent) => boolean) {
  const transactions = countedTransactions();
  const deliveries: { eventId: string; applied: boolean }[] = [];
  const batches: number[] = [];
  let failed = false;
  let batchFailed = false;
  const consumer = new IdempotentConsumer({
    kafka,
    groupId: `test.batches.${topic}`,
    topics: [topic],
    logger,
    runInTransaction: transactions.run,
    handler: async (t, event) => {
      if (event.eventId === failOnceOn && !failed) {
        failed = true;
        throw new Error("the handler fails once on this event");
      }
      await t.$executeRawUnsafe(`INSERT INTO ledger_entry (event_id, amount) VALUES ($1::uuid, $2)`, event.eventId, amountOf(event));
    },
    ...(batched
      ? {
          // One statement for the chunk; fails once for the chunk holding failOnceOn, to be applied one by one.
          batchHandler: async (t: SqlClient, chunk: readonly ConsumedEvent[]) => {
            batches.push(chunk.length);
            if (!batchFailed && chunk.some((event) => event.eventId === failOnceOn)) {
              batchFailed = true;
              throw new Error("the batch handler fails once on this chunk");
            }
            await t.$executeRawUnsafe(
              `INSERT INTO ledger_entry (event_id, amount) SELECT * FROM unnest($1::uuid[], $2::int[])`,
              chunk.map((event) => event.eventId),
              chunk.map(amountOf),
            );
          },
        }
      : {}),
    ...(ignores ? { ignores } : {}),
    onDelivery: (event, applied) => deliveries.push({ eventId: event.eventId, applied }),
  });
  await consumer.start();
  const deadline = Date.now() + 60_000;
  const ids = () => db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM ledger_entry`);
  while (Number((await ids())[0]!.n) < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  // Let a wrongly repeated delivery show before stopping.
  await new Promise((r) => setTimeout(r, 500));
  await consumer.stop();
  const rows = await db.$queryRawUnsafe<{ event_id: string; amount: number }[]>(`SELECT event_id::text, amount FROM ledger_entry ORDER BY id`);
  await db.$executeRawUnsafe(`DELETE FROM ledger_entry`);
  return { transactions: transactions.opened, deliveries, rows, batches };
}

const events = (n: number): Sent[] => Array.from({ length: n }, (_, i) => ({ eventId: randomUUID(), amount: i + 1 }));

describe("the consumer applies a fetch in batches", () => {
  it("applies 250 events once each and in order, in a handful of transactions", async () => {
    const sent = events(250);
    const topic = `test.batches.plain.${run}`;
    await sendAll(topic, sent);
    const { transactions, deliveries, rows } = await consume(topic, 250);
    expect(rows).toEqual(sent.map((e) => ({ event_id: e.eventId, amount: e.amount })));
    expect(deliveries.filter((d) => d.applied).map((d) => d.eventId)).toEqual(sent.map((e) => e.eventId));
    // One transaction per event would be 250; a fetch is applied 100 events at a time.
    expect(transactions).toBeLessThanOrEqual(10);
  });

  it("retries a failing event alone, keeps the events before it, and skips a second copy", async () => {
    const sent = events(60);
    const copy = sent[9]!; // republished later under the same event id
    const topic = `test.batches.failing.${run}`;
    await sendAll(topic, [...sent, copy]);
    const { deliveries, rows } = await consume(topic, 60, sent[29]!.eventId);
    expect(rows).toEqual(sent.map((e) => ({ event_id: e.eventId, amount: e.amount })));
    const applied = deliveries.filter((d) => d.applied).map((d) => d.eventId);
    expect(applied).toEqual(sent.map((e) => e.eventId));
    expect(deliveries.at(-1)).toEqual({ eventId: copy.eventId, applied: false });
  });

  it("gives a batch handler each chunk's fresh events together, in order, and a failing chunk's events to the handler one by one", async () => {
    const sent = events(150);
    const copy = sent[9]!;
    const topic = `test.batches.batched.${run}`;
    await sendAll(topic, [...sent, copy]);
    const { deliveries, rows, batches } = await consume(topic, 150, sent[120]!.eventId, true);
    expect(rows).toEqual(sent.map((e) => ({ event_id: e.eventId, amount: e.amount })));
    expect(deliveries.filter((d) => d.applied).map((d) => d.eventId)).toEqual(sent.map((e) => e.eventId));
    expect(deliveries.at(-1)).toEqual({ eventId: copy.eventId, applied: false });
    // Chunks of up to 100 events in a few calls, one of which failed and went one by one (through `handler`).
    expect(batches.length).toBeLessThanOrEqual(10);
    expect(Math.max(...batches)).toBeGreaterThan(1);
  });

  it("neither claims nor applies the events the service ignores, and applies the others in order", async () => {
    const sent = events(120);
    const topic = `test.batches.ignored.${run}`;
    await sendAll(topic, sent);
    const even = (event: ConsumedEvent) => amountOf(event) % 2 === 0;
    const claimed = async () => Number((await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM processed_event WHERE consumer_group = $1`, `test.batches.${topic}`))[0]!.n);
    const { deliveries, rows } = await consume(topic, 60, undefined, true, even);
    const odd = sent.filter((e) => e.amount % 2 === 1);
    expect(rows).toEqual(odd.map((e) => ({ event_id: e.eventId, amount: e.amount })));
    expect(deliveries.filter((d) => d.applied).map((d) => d.eventId)).toEqual(odd.map((e) => e.eventId));
    expect(deliveries.filter((d) => !d.applied)).toHaveLength(60);
    expect(await claimed()).toBe(60);
  });
});

describe("the consumer's offset commits", () => {
  it("commits events applied one at a time together, and the group's offset still reaches the end within a moment", async () => {
    const topic = `test.batches.trickle.${run}`;
    const groupId = `test.batches.${topic}`;
    await ensureTopics([...brokers], [{ topic, numPartitions: 1 }]);
    let commits = 0;
    // The consumer's commits counted as it sends them (one request each).
    const counting = new Proxy(kafka, {
      get(target, prop) {
        if (prop !== "consumer") return Reflect.get(target, prop) as unknown;
        return (config: Parameters<typeof kafka.consumer>[0]) => {
          const consumer = target.consumer(config);
          const commit = consumer.commitOffsets.bind(consumer);
          consumer.commitOffsets = (offsets) => {
            commits++;
            return commit(offsets);
          };
          return consumer;
        };
      },
    });
    const tx = transactionsOf(db);
    const applied: string[] = [];
    const consumer = new IdempotentConsumer({
      kafka: counting,
      groupId,
      topics: [topic],
      logger,
      runInTransaction: tx,
      handler: async (t, event) => {
        await t.$executeRawUnsafe(`INSERT INTO ledger_entry (event_id, amount) VALUES ($1::uuid, 1)`, event.eventId);
      },
      onDelivery: (event) => applied.push(event.eventId),
    });
    await consumer.start();
    const producer = kafka.producer();
    await producer.connect();
    const admin = kafka.admin();
    await admin.connect();
    try {
      // Each event sent once the one before it was applied: every fetch brings one.
      const sent = events(40).map((event) => ({ ...event, amount: 1 }));
      for (const event of sent) await sendAlone(producer, topic, event, () => applied.includes(event.eventId));
      expect(applied).toEqual(sent.map((e) => e.eventId));
      const committed = async () => Number((await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions[0]!.offset);
      const deadline = Date.now() + 10_000;
      while ((await committed()) < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await committed()).toBe(40);
      // One commit per event would be 40.
      expect(commits).toBeLessThan(30);
    } finally {
      await consumer.stop();
      await producer.disconnect();
      await admin.disconnect();
      await db.$executeRawUnsafe(`DELETE FROM ledger_entry`);
    }
  });
});

describe("events applied alone in one statement with their claim", () => {
  it("applies an event a fetch brings alone without a transaction, skips its second copy, and gives the handler what its writes do not apply", async () => {
    const topic = `test.batches.alone.${run}`;
    const groupId = `test.batches.${topic}`;
    await ensureTopics([...brokers], [{ topic, numPartitions: 1 }]);
    const transactions = countedTransactions();
    const handled: string[] = [];
    const deliveries: { eventId: string; applied: boolean }[] = [];
    const consumer = new IdempotentConsumer({
      kafka,
      groupId,
      topics: [topic],
      logger,
      runInTransaction: transactions.run,
      handler: async (t, event) => {
        handled.push(event.eventId);
        await t.$executeRawUnsafe(`INSERT INTO ledger_entry (event_id, amount) VALUES ($1::uuid, $2)`, event.eventId, amountOf(event));
      },
      // The writes apply a positive amount only: a negative one is the handler's (as an event a
      // service's one-statement writes cannot apply, a job that already exists, say).
      alone: {
        sql: db,
        writesFor: (event, first) => ({
          ctes: `applied AS (INSERT INTO ledger_entry (event_id, amount) SELECT $${first}::uuid, $${first + 1}::int FROM go WHERE $${first + 1}::int > 0 ON CONFLICT DO NOTHING RETURNING 1)`,
          values: [event.eventId, amountOf(event)],
        }),
      },
      deadLetters: { maxAttempts: 3 },
      onDelivery: (event, applied) => deliveries.push({ eventId: event.eventId, applied }),
    });
    await consumer.start();
    const producer = kafka.producer();
    await producer.connect();
    const claims = async (eventId: string) => Number((await db.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM processed_event WHERE consumer_group = $1 AND event_id = $2::uuid`, groupId, eventId))[0]!.n);
    try {
      const [first, second, negative] = events(3);
      const sent = [first!, second!, { eventId: negative!.eventId, amount: -5 }, first!];
      // One at a time, each once the one before it was delivered: every fetch brings one.
      for (const [i, event] of sent.entries()) await sendAlone(producer, topic, event, () => deliveries.length > i);
      expect(deliveries).toEqual([
        { eventId: first!.eventId, applied: true },
        { eventId: second!.eventId, applied: true },
        { eventId: negative!.eventId, applied: true },
        { eventId: first!.eventId, applied: false },
      ]);
      const rows = await db.$queryRawUnsafe<{ event_id: string; amount: number }[]>(`SELECT event_id::text, amount FROM ledger_entry ORDER BY id`);
      expect(rows).toEqual([
        { event_id: first!.eventId, amount: first!.amount },
        { event_id: second!.eventId, amount: second!.amount },
        { event_id: negative!.eventId, amount: -5 },
      ]);
      for (const event of [first!, second!, negative!]) expect(await claims(event.eventId)).toBe(1);
      // The two positive ones took no transaction; the negative one and the second copy of the first took one each.
      expect(handled).toEqual([negative!.eventId]);
      expect(transactions.opened).toBe(2);
    } finally {
      await consumer.stop();
      await producer.disconnect();
      await db.$executeRawUnsafe(`DELETE FROM ledger_entry`);
    }
  });

  it("does not apply alone an event of a key waiting behind a parked event: it is parked behind it", async () => {
    const topic = `test.batches.alone-parked.${run}`;
    const groupId = `test.batches.${topic}`;
    await ensureTopics([...brokers], [{ topic, numPartitions: 1 }]);
    const [poison, behind] = events(2);
    await db.$executeRawUnsafe(
      `INSERT INTO parked_event (consumer_group, event_id, key, topic, partition, "offset", type, payload, error, attempts, parked_at)
       VALUES ($1, $2::uuid, 'account-1', $3, 0, 0, 'test.Amount', '\\x'::bytea, 'failed', 3, now())`,
      groupId,
      poison!.eventId,
      topic,
    );
    const deliveries: { eventId: string; applied: boolean }[] = [];
    const consumer = new IdempotentConsumer({
      kafka,
      groupId,
      topics: [topic],
      logger,
      runInTransaction: transactionsOf(db),
      handler: async () => {
        throw new Error("never applied: its key waits");
      },
      alone: {
        sql: db,
        writesFor: (event, first) => ({ ctes: `applied AS (INSERT INTO ledger_entry (event_id, amount) SELECT $${first}::uuid, 1 FROM go RETURNING 1)`, values: [event.eventId] }),
      },
      deadLetters: { maxAttempts: 3 },
      onDelivery: (event, applied) => deliveries.push({ eventId: event.eventId, applied }),
    });
    await consumer.start();
    const producer = kafka.producer();
    await producer.connect();
    try {
      await sendAlone(producer, topic, { ...behind!, amount: 1 }, () => deliveries.length > 0);
      expect(deliveries).toEqual([{ eventId: behind!.eventId, applied: false }]);
      expect(await db.$queryRawUnsafe(`SELECT event_id::text FROM ledger_entry`)).toEqual([]);
      const parked = await db.$queryRawUnsafe<{ event_id: string }[]>(`SELECT event_id::text FROM parked_event WHERE consumer_group = $1 ORDER BY parked_at, event_id`, groupId);
      expect(parked.map((row) => row.event_id).sort()).toEqual([poison!.eventId, behind!.eventId].sort());
    } finally {
      await consumer.stop();
      await producer.disconnect();
    }
  });
});
