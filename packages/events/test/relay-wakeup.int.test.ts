import { randomUUID } from "node:crypto";
import { listenForNotifications } from "@tawsil/db";
import { OUTBOX_CHANNEL, OutboxRelay, writeOutbox, type PublishedRecord } from "@tawsil/events";
import { createLogger } from "@tawsil/logging";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RawSql } from "@tawsil/db";
import { createFixtureDatabase, fixtureClient, transactionsOf, type FixtureClient } from "./fixtures/fixture-db";

const adminUrl = inject("databaseAdminUrl");
const logger = createLogger({ service: "relay-wakeup-test", level: "silent" });
const HOUR = 3_600_000;

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * An idle relay sleeps (its poll is an hour here) and wakes only because writeOutbox's NOTIFY
 * reaches it at commit: without the notification, none of these rows would be published in time.
 */
describe("outbox relay woken by notifications", () => {
  let db: FixtureClient;
  let url: string;
  let drop: () => Promise<void>;
  const published: PublishedRecord[] = [];
  let relay: OutboxRelay<RawSql>;
  let listener: { close(): Promise<void> };

  beforeAll(async () => {
    const database = await createFixtureDatabase(adminUrl, `tawsil_test_wakeup_${randomUUID().slice(0, 8)}`);
    ({ url, drop } = database);
    db = fixtureClient(url);
    relay = new OutboxRelay({ runInTransaction: transactionsOf(db), publisher: { publish: async (records) => void published.push(...records) }, logger, idleMs: HOUR });
    listener = await listenForNotifications({ url, channel: OUTBOX_CHANNEL, onNotify: () => relay.wake(), logger });
    relay.start();
  });

  afterAll(async () => {
    await listener?.close();
    await relay?.stop();
    await db?.$disconnect();
    await drop?.();
  });

  const message = (n: number) => ({ topic: "test.wakeup", key: "k", type: "test", payload: new Uint8Array([n]) });

  it("publishes a committed row at once, and nothing of a rolled-back one", async () => {
    await expect(
      transactionsOf(db)(async (tx) => {
        await writeOutbox(tx, message(0));
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    const eventId = await transactionsOf(db)((tx) => writeOutbox(tx, message(1)));
    await until(() => published.some((r) => r.eventId === eventId), "the committed row");
    expect(published.map((r) => r.payload[0])).toEqual([1]);
  });

  it("publishes every row of many concurrent writers, each once, while sleeping between", async () => {
    published.length = 0;
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => transactionsOf(db)((tx) => writeOutbox(tx, message(i)))));
    await until(() => published.length >= ids.length, "every row");
    expect(new Set(published.map((r) => r.eventId))).toEqual(new Set(ids));
    expect(published).toHaveLength(ids.length);
  });
});
