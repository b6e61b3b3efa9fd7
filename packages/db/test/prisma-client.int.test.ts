import { randomUUID } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The events package's fixture client: a real generated client, typed, without depending on a service.
import { PrismaClient } from "../../events/test/prisma/generated/client";
import { createPrismaClient, disconnect, migrate, withTransaction, type Db } from "../src/index";
import { ADMIN_URL, createTestDatabase, type TestDatabase } from "./test-database";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../events/test/prisma/migrations");

/** A repository written once, usable with the client or inside a caller's transaction. */
function recordLedger(db: Db<PrismaClient>, amount: number) {
  return db.ledgerEntry.create({ data: { eventId: randomUUID(), amount } });
}

let db: TestDatabase;
let client: PrismaClient;

beforeAll(async () => {
  db = await createTestDatabase("prisma_client");
  await migrate(db.url, MIGRATIONS);
  client = createPrismaClient(PrismaClient, { url: db.url, maxConnections: 2 });
});

afterAll(async () => {
  await disconnect(client);
  await db.drop();
});

describe("createPrismaClient", () => {
  it("queries through the pg driver adapter", async () => {
    const entry = await recordLedger(client, 5);
    expect(await client.ledgerEntry.findUnique({ where: { id: entry.id } })).toEqual(entry);
  });

  // errorFormat "minimal" (no call site captured per query) must leave what services map intact.
  it("fails a unique violation with code P2002 and its target, without capturing the calling line", async () => {
    const eventId = randomUUID();
    await client.ledgerEntry.create({ data: { eventId, amount: 1 } });
    const duplicate = (c: PrismaClient) =>
      c.ledgerEntry.create({ data: { eventId, amount: 2 } }).then(
        () => null,
        (e: unknown) => e as { code?: unknown; meta?: unknown; message: string },
      );
    const error = await duplicate(client);
    expect(error?.code).toBe("P2002");
    expect(JSON.stringify(error?.meta)).toContain("event_id");
    expect(error?.message).toContain("Unique constraint failed");
    expect(error?.message).not.toContain(path.basename(import.meta.filename));
    // Prisma's default format would have found this file's line (a stack trace per query).
    const colorless = createPrismaClient(PrismaClient, { url: db.url, maxConnections: 1, errorFormat: "colorless" });
    try {
      expect((await duplicate(colorless))?.message).toContain(path.basename(import.meta.filename));
    } finally {
      await disconnect(colorless);
    }
  });

  it("fails a raw statement with the SQLSTATE in its message and meta", async () => {
    const error = await client.$queryRaw`SELECT 1 / 0`.then(
      () => null,
      (e: unknown) => e as { code?: unknown; meta?: { code?: unknown }; message: string },
    );
    expect(error?.code).toBe("P2010");
    expect(error?.message).toContain("Code: `22012`");
    // What the services' SQLSTATE checks read (shipment's sqlStateOf, the RPC edge's outage test).
    expect(JSON.stringify(error)).toContain('"code":"22012"');
  });
});

describe("withTransaction", () => {
  it("commits what the callback wrote when it resolves", async () => {
    const entry = await withTransaction(client, (tx) => recordLedger(tx, 7));
    expect(await client.ledgerEntry.count({ where: { id: entry.id } })).toBe(1);
  });

  it("rolls every write back when the callback rejects, passing the rejection on", async () => {
    const before = await client.ledgerEntry.count();
    const failure = new Error("handler failed");

    const outcome = withTransaction(client, async (tx) => {
      await recordLedger(tx, 1);
      await tx.processedEvent.create({ data: { consumerGroup: "ledger.test", eventId: randomUUID() } });
      throw failure;
    });

    await expect(outcome).rejects.toBe(failure);
    expect(await client.ledgerEntry.count()).toBe(before);
    expect(await client.processedEvent.count()).toBe(0);
  });

  it("runs at the requested isolation level", async () => {
    const level = await withTransaction(
      client,
      async (tx) => (await tx.$queryRaw<{ transaction_isolation: string }[]>`SHOW transaction_isolation`)[0]?.transaction_isolation,
      { isolationLevel: "Serializable" },
    );
    expect(level).toBe("serializable");
  });
});

describe("disconnect", () => {
  it("closes every pooled connection of the client", async () => {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    const connections = async () =>
      Number((await admin.query<{ count: string }>("SELECT count(*) FROM pg_stat_activity WHERE datname = $1", [db.name])).rows[0]?.count);
    try {
      const baseline = await connections();
      const own = createPrismaClient(PrismaClient, { url: db.url, maxConnections: 3 });
      await Promise.all([own.ledgerEntry.count(), own.ledgerEntry.count(), own.processedEvent.count()]);
      expect(await connections()).toBeGreaterThan(baseline);

      await disconnect(own);

      // Backends exit asynchronously after the client hangs up.
      await expect.poll(connections, { timeout: 5_000 }).toBeLessThanOrEqual(baseline);
    } finally {
      await admin.end();
    }
  });
});
