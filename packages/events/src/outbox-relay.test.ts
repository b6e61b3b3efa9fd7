import { createLogger } from "@tawsil/logging";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OutboxRelay } from "./outbox-relay";
import type { EventPublisher, PublishedRecord } from "./publisher";
import type { RunInTransaction, SqlClient } from "./sql";

/**
 * The relay's timing on a clock the test moves: an outbox in memory (its claim takes every unsent
 * row, as CLAIM_AND_MARK does) and a publisher that records each batch. The relay's statements
 * against PostgreSQL are proven by the integration tests (test/outbox.int.test.ts, relay-wakeup).
 */
function memoryOutbox() {
  const unsent: (PublishedRecord & { seq: bigint })[] = [];
  const batches: string[][] = [];
  let seq = 0n;
  const tx: SqlClient = {
    $executeRawUnsafe: async () => 0,
    $queryRawUnsafe: async <T>() => unsent.splice(0) as T,
  };
  const runInTransaction: RunInTransaction<SqlClient> = (fn) => fn(tx);
  return {
    batches,
    runInTransaction,
    commit(key: string) {
      unsent.push({ seq: ++seq, eventId: key, topic: "t", key, type: "test", payload: new Uint8Array(), headers: {} });
    },
    publisher: {
      publish: async (records) => {
        batches.push(records.map((r) => r.key));
      },
    } as EventPublisher,
  };
}

const logger = createLogger({ service: "relay-linger-test", level: "silent" });
const HOUR = 3_600_000;

describe("outbox relay linger", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  async function started(lingerMs: number) {
    const outbox = memoryOutbox();
    const relay = new OutboxRelay({ runInTransaction: outbox.runInTransaction, publisher: outbox.publisher, logger, idleMs: HOUR, lingerMs });
    relay.start();
    await vi.advanceTimersByTimeAsync(0); // the first look finds nothing and sleeps
    return { outbox, relay };
  }

  it("sends what was committed within the linger after a wake-up as one batch", async () => {
    const { outbox, relay } = await started(10);
    outbox.commit("a");
    relay.wake();
    await vi.advanceTimersByTimeAsync(6);
    expect(outbox.batches).toEqual([]);
    outbox.commit("b");
    relay.wake(); // changes nothing: the batch about to leave takes b
    await vi.advanceTimersByTimeAsync(4);
    expect(outbox.batches).toEqual([["a", "b"]]);
    await relay.stop();
  });

  it("lingers after a wake-up that came while a batch was in flight, then sends what came meanwhile", async () => {
    const { outbox, relay } = await started(10);
    let release!: () => void;
    const publish = outbox.publisher.publish;
    outbox.publisher.publish = (records) => publish(records).then(() => new Promise<void>((r) => (release = r)));
    outbox.commit("a");
    relay.wake();
    await vi.advanceTimersByTimeAsync(10);
    expect(outbox.batches).toEqual([["a"]]);
    outbox.commit("b");
    relay.wake(); // while a's batch waits for the broker
    outbox.publisher.publish = publish;
    release();
    await vi.advanceTimersByTimeAsync(5);
    outbox.commit("c");
    await vi.advanceTimersByTimeAsync(5);
    expect(outbox.batches).toEqual([["a"], ["b", "c"]]);
    await relay.stop();
  });

  it("sends at once without a linger", async () => {
    const { outbox, relay } = await started(0);
    outbox.commit("a");
    relay.wake();
    await vi.advanceTimersByTimeAsync(0);
    outbox.commit("b");
    relay.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(outbox.batches).toEqual([["a"], ["b"]]);
    await relay.stop();
  });

  it("stops at once while lingering", async () => {
    const { outbox, relay } = await started(HOUR);
    outbox.commit("a");
    relay.wake();
    await relay.stop();
    expect(outbox.batches).toEqual([]);
  });
});
