/**
 * Poison events: after its maximum attempts an event that cannot be applied is parked with what an
 * operator needs, the partition's next events (other keys) apply, later events of its key wait
 * parked behind it, and a replay applies them once, in order. A database outage is no poison: it is
 * retried without counting, and nothing is parked. Real PostgreSQL and Kafka.
 */
import { randomUUID } from "node:crypto";
import { createKafka, DeadLetterAdmin, EVENT_HEADERS, IdempotentConsumer, PARKED_EVENTS_METRIC, type ConsumedEvent, type RunInTransaction, type SqlClient } from "@tawsil/events";
import { createLogger } from "@tawsil/logging";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureTopics } from "../../testing/src/infra/kafka";
import { createFixtureDatabase, fixtureClient, transactionsOf, type FixtureClient } from "./fixtures/fixture-db";

const brokers = inject("kafkaBrokers");
const adminUrl = inject("databaseAdminUrl");
const logger = createLogger({ service: "dead-letter-test", level: "silent" });
const run = randomUUID().slice(0, 8);
const kafka = createKafka({ clientId: "dead-letter-test", brokers: [...brokers], logger });
const PARKED_AT = new Date("2031-03-01T12:00:00.000Z");

let db: FixtureClient;
let drop: () => Promise<void>;
beforeAll(async () => {
  const database = await createFixtureDatabase(adminUrl, `tawsil_test_dead_letters_${run}`);
  drop = database.drop;
  db = fixtureClient(database.url);
});
afterAll(async () => {
  await db?.$disconnect();
  await drop?.();
});

interface Sent {
  readonly eventId: string;
  readonly key: string;
  readonly amount: number;
}
const event = (key: string, amount: number): Sent => ({ eventId: randomUUID(), key, amount });

async function send(topic: string, events: readonly Sent[]): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic,
    messages: events.map(({ eventId, key, amount }) => ({ key, value: Buffer.from(String(amount)), headers: { [EVENT_HEADERS.id]: eventId, [EVENT_HEADERS.type]: "test.Amount" } })),
  });
  await producer.disconnect();
}

const amountOf = (e: ConsumedEvent) => Number(Buffer.from(e.payload).toString());
const ledger = async () => (await db.$queryRawUnsafe<{ amount: number }[]>(`SELECT amount FROM ledger_entry ORDER BY id`)).map((r) => r.amount);
const parked = () =>
  db.$queryRawUnsafe<{ id: string; event_id: string; key: string; partition: number; offset: string; error: string; attempts: number; parked_at: Date; resolution: string | null; payload: Uint8Array }[]>(
    `SELECT id::text, event_id::text, key, partition, "offset"::text, error, attempts, parked_at, resolution, payload FROM parked_event ORDER BY id`,
  );

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The ledger's handler: writes the amount; `fails(amount)` decides which amounts throw. */
function ledgerHandler(calls: number[], fails: (amount: number, tx: SqlClient) => Promise<void> | void) {
  return async (tx: SqlClient, e: ConsumedEvent) => {
    calls.push(amountOf(e));
    await fails(amountOf(e), tx);
    await tx.$executeRawUnsafe(`INSERT INTO ledger_entry (event_id, amount) VALUES ($1::uuid, $2)`, e.eventId, amountOf(e));
  };
}

describe("poison events", () => {
  it("parks a failing event after N attempts, parks later events of its key behind it, applies the rest, and replays them once, in order", async () => {
    const topic = `test.dead-letters.poison.${run}`;
    const groupId = `test.dead-letters.${run}`;
    await ensureTopics([...brokers], [{ topic, numPartitions: 1 }]);
    const calls: number[] = [];
    let poisoned = true;
    const handler = ledgerHandler(calls, (amount) => {
      if (poisoned && amount === 20) throw new Error("cannot decode amount 20");
    });
    const registry = new Registry();
    const consumer = new IdempotentConsumer({ kafka, groupId, topics: [topic], logger, runInTransaction: transactionsOf(db), handler, deadLetters: { maxAttempts: 3, clock: () => PARKED_AT, registry } });
    const sent = [event("A", 10), event("P", 20), event("B", 30), event("P", 21), event("B", 31), event("C", 40), event("P", 22)];
    await send(topic, sent);
    await consumer.start();
    try {
      await until("the other keys and three parked events", async () => (await ledger()).length === 4 && (await parked()).length === 3);
      // The partition moves on: a later event of another key applies too.
      await send(topic, [event("A", 11)]);
      await until("the later event", async () => (await ledger()).length === 5);
      expect(await ledger()).toEqual([10, 30, 31, 40, 11]);
      // Once in the first chunk's transaction, then its three counted attempts alone.
      expect(calls.filter((amount) => amount === 20)).toEqual([20, 20, 20, 20]);
      expect(calls).not.toContain(21);
      const rows = await parked();
      expect(rows.map((r) => ({ ...r, payload: Buffer.from(r.payload).toString(), id: undefined }))).toEqual([
        { id: undefined, event_id: sent[1]!.eventId, key: "P", partition: 0, offset: "1", error: "Error: cannot decode amount 20", attempts: 3, parked_at: PARKED_AT, resolution: null, payload: "20" },
        { id: undefined, event_id: sent[3]!.eventId, key: "P", partition: 0, offset: "3", error: "waiting behind an earlier parked event of the same key", attempts: 0, parked_at: PARKED_AT, resolution: null, payload: "21" },
        { id: undefined, event_id: sent[6]!.eventId, key: "P", partition: 0, offset: "6", error: "waiting behind an earlier parked event of the same key", attempts: 0, parked_at: PARKED_AT, resolution: null, payload: "22" },
      ]);
      const metric = (await registry.getSingleMetric(PARKED_EVENTS_METRIC)?.get())?.values.map((v) => [v.labels.reason, v.value]);
      expect(Object.fromEntries(metric ?? [])).toEqual({ failed: 1, behind: 2 });

      // Replay: only the first of the key; then it and those behind it, in order, once however often it is asked.
      poisoned = false;
      const admin = new DeadLetterAdmin({ groupId, runInTransaction: transactionsOf(db), handler });
      await expect(admin.replay(rows[1]!.id)).rejects.toMatchObject({ reason: "NOT_FIRST" });
      const replays = await Promise.allSettled([admin.replay(rows[0]!.id), admin.replay(rows[0]!.id)]);
      const applied = replays.flatMap((r) => (r.status === "fulfilled" ? r.value.applied.map((p) => amountOf(p.event)) : []));
      expect(applied).toEqual([20, 21, 22]);
      expect(await ledger()).toEqual([10, 30, 31, 40, 11, 20, 21, 22]);
      expect(calls.filter((amount) => amount >= 20 && amount < 30)).toEqual([20, 20, 20, 20, 20, 21, 22]);
      expect((await parked()).map((r) => r.resolution)).toEqual(["REPLAYED", "REPLAYED", "REPLAYED"]);
      await expect(admin.replay(rows[0]!.id)).rejects.toMatchObject({ reason: "RESOLVED" });

      // The key no longer waits: its next event applies at once.
      await send(topic, [event("P", 23)]);
      await until("the key's next event", async () => (await ledger()).length === 9);
      expect((await parked()).length).toBe(3);
    } finally {
      await consumer.stop();
      await db.$executeRawUnsafe(`TRUNCATE ledger_entry, parked_event`);
    }
  });

  it("claims an event in one statement with dead letters on: the look for a parked event of its key rides on the claim", async () => {
    const topic = `test.dead-letters.statements.${run}`;
    await ensureTopics([...brokers], [{ topic, numPartitions: 1 }]);
    // Each transaction's statements, counted through the client the consumer is given.
    const runner = transactionsOf(db);
    const perTransaction: number[] = [];
    const counting: RunInTransaction<SqlClient> = (fn) =>
      runner(async (tx) => {
        let statements = 0;
        const counted: SqlClient = {
          $executeRawUnsafe: (query, ...values) => (statements++, tx.$executeRawUnsafe(query, ...values)),
          $queryRawUnsafe: (query, ...values) => (statements++, tx.$queryRawUnsafe(query, ...values)),
        };
        try {
          return await fn(counted);
        } finally {
          perTransaction.push(statements);
        }
      });
    const consumer = new IdempotentConsumer({ kafka, groupId: `test.dead-letters.statements.${run}`, topics: [topic], logger, runInTransaction: counting, handler: ledgerHandler([], () => undefined), deadLetters: { maxAttempts: 3 } });
    // Three together (a chunk), then one alone (the single path).
    await send(topic, [event("A", 1), event("B", 2), event("A", 3)]);
    await consumer.start();
    try {
      await until("the chunk", async () => (await ledger()).length === 3);
      await send(topic, [event("C", 4)]);
      await until("the single event", async () => (await ledger()).length === 4);
      // The claim, then the handler's one INSERT per event: nothing else.
      expect(perTransaction).toEqual([1 + 3, 1 + 1]);
    } finally {
      await consumer.stop();
      await db.$executeRawUnsafe(`TRUNCATE ledger_entry, parked_event`);
    }
  });

  it("keeps retrying through a database outage without counting it, and parks nothing", async () => {
    const topic = `test.dead-letters.outage.${run}`;
    await ensureTopics([...brokers], [{ topic, numPartitions: 1 }]);
    const calls: number[] = [];
    let outages = 5;
    // The server ends the handler's session (57P01, as in a restart or failover) five times over;
    // the next transaction gets a new connection that works, so a parking would succeed.
    const handler = ledgerHandler(calls, async (amount, tx) => {
      if (amount === 50 && outages-- > 0) await tx.$queryRawUnsafe(`SELECT pg_terminate_backend(pg_backend_pid())`);
    });
    const consumer = new IdempotentConsumer({ kafka, groupId: `test.dead-letters.outage.${run}`, topics: [topic], logger, runInTransaction: transactionsOf(db), handler, deadLetters: { maxAttempts: 2 } });
    await send(topic, [event("D", 50), event("E", 60)]);
    await consumer.start();
    try {
      await until("both events", async () => (await ledger()).length === 2);
      expect(await ledger()).toEqual([50, 60]);
      expect(calls.filter((amount) => amount === 50)).toHaveLength(6);
      expect(await parked()).toEqual([]);
    } finally {
      await consumer.stop();
      await db.$executeRawUnsafe(`TRUNCATE ledger_entry, parked_event`);
    }
  });
});
