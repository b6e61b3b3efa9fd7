import { randomUUID } from "node:crypto";
import net from "node:net";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "../../events/test/prisma/generated/client";
import { ConnectionAwarePool, createPrismaClient, disconnect, isDatabaseUnavailable, listenForNotifications, migrate, sqlStateOf, violatedConstraintOf, withTransaction } from "../src/index";
import { startCuttingProxy, startStartingUpServer, type CuttingProxy } from "./cutting-proxy";
import { ADMIN_URL, createTestDatabase, type TestDatabase } from "./test-database";

/**
 * Issue 26: every path by which a database outage reaches a service, on a real PostgreSQL (and real
 * sockets cut under it), is classified "unavailable" (503) by @tawsil/db, and nothing else is. A
 * 500 in the fault suite came from one such path that no message pattern named.
 */
const MIGRATIONS = path.resolve(import.meta.dirname, "../../events/test/prisma/migrations");
/** A port nothing listens on: bound once by the system, then released. */
const unusedPort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (error: unknown) => error,
  );

let db: TestDatabase;
let proxy: CuttingProxy;
const clients: PrismaClient[] = [];
const clientAt = (url: string) => {
  const client = createPrismaClient(PrismaClient, { url, maxConnections: 2, connectionTimeoutMs: 2_000 });
  clients.push(client);
  return client;
};

beforeAll(async () => {
  db = await createTestDatabase("failures");
  await migrate(db.url, MIGRATIONS);
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => disconnect(c).catch(() => {})));
  await proxy?.close();
});

afterAll(async () => {
  await db.drop();
});

describe("a database outage is unavailable, whichever way it arrives", () => {
  it("a pool whose connect is refused (nothing listens)", async () => {
    const url = new URL(db.url);
    url.port = String(await unusedPort());
    const client = clientAt(url.toString());
    const error = await failureOf(client.ledgerEntry.count());
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(isDatabaseUnavailable(await failureOf(client.$queryRaw`SELECT 1`))).toBe(true);
  });

  it("a connection terminated mid-query (the socket cut under a running statement)", async () => {
    proxy = await startCuttingProxy(db.url);
    const client = clientAt(proxy.url);
    const running = failureOf(client.$queryRaw`SELECT pg_sleep(5)::text`);
    await sleep(300);
    proxy.cutAll();
    const error = await running;
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(sqlStateOf(error)).toBe("08006");
  });

  it("57P01: the server terminates the session (admin shutdown, a fast restart)", async () => {
    const url = new URL(db.url);
    url.searchParams.set("application_name", "failures_57p01");
    const client = clientAt(url.toString());
    const running = failureOf(client.$queryRaw`SELECT pg_sleep(5)::text`);
    await sleep(300);
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      const { rowCount } = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'failures_57p01' AND state = 'active'", [db.name]);
      expect(rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    const error = await running;
    expect(sqlStateOf(error)).toBe("57P01");
    expect(isDatabaseUnavailable(error)).toBe(true);
    // The pool's next query (the terminated connection was discarded) works.
    expect(await client.ledgerEntry.count()).toBeGreaterThanOrEqual(0);
  });

  it("57P03: the server is starting up", async () => {
    const starting = await startStartingUpServer();
    try {
      const error = await failureOf(clientAt(starting.url).ledgerEntry.count());
      expect(sqlStateOf(error)).toBe("57P03");
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await starting.close();
    }
  });

  it("a query during the pool's reconnect: its connections cut and the server not back yet, then back", async () => {
    proxy = await startCuttingProxy(db.url);
    const client = clientAt(proxy.url);
    await client.ledgerEntry.count();
    await proxy.refuse();
    proxy.cutAll();
    const failures = await Promise.all([client.ledgerEntry.count(), client.$queryRaw`SELECT 1`, withTransaction(client, (tx) => tx.ledgerEntry.count())].map(failureOf));
    for (const error of failures) expect(isDatabaseUnavailable(error)).toBe(true);
    await proxy.reopen();
    expect(await client.ledgerEntry.count()).toBeGreaterThanOrEqual(0);
  });

  it("a server that accepts connections and never answers: a query after the connect timeout, a transaction after maxWait", async () => {
    proxy = await startCuttingProxy(db.url);
    const client = clientAt(proxy.url);
    proxy.hang(true);
    const [query, transaction] = await Promise.all([client.ledgerEntry.count(), withTransaction(client, (tx) => tx.ledgerEntry.count(), { maxWaitMs: 500 })].map(failureOf));
    expect(sqlStateOf(query)).toBe("08001");
    expect(isDatabaseUnavailable(query)).toBe(true);
    expect(isDatabaseUnavailable(transaction)).toBe(true);
    proxy.hang(false);
    proxy.cutAll();
    expect(await client.ledgerEntry.count()).toBeGreaterThanOrEqual(0);
  });

  it("a transaction whose COMMIT loses the connection (and nothing of it is kept)", async () => {
    proxy = await startCuttingProxy(db.url);
    const client = clientAt(proxy.url);
    const eventId = randomUUID();
    proxy.cutOnStatement("COMMIT");
    const error = await failureOf(withTransaction(client, (tx) => tx.ledgerEntry.create({ data: { eventId, amount: 1 } })));
    expect(isDatabaseUnavailable(error)).toBe(true);
    proxy.cutOnStatement(undefined);
    expect(await client.ledgerEntry.count({ where: { eventId } })).toBe(0);
  });

  it("node-postgres alone, on our pool: a cut connection and a refused connect", async () => {
    proxy = await startCuttingProxy(db.url);
    const pool = new ConnectionAwarePool({ connectionString: proxy.url, connectionTimeoutMillis: 2_000, max: 1 });
    pool.on("error", () => {});
    try {
      const running = failureOf(pool.query("SELECT pg_sleep(5)::text"));
      await sleep(300);
      proxy.cutAll();
      expect(isDatabaseUnavailable(await running)).toBe(true);
      await proxy.refuse();
      expect(isDatabaseUnavailable(await failureOf(pool.query("SELECT 1")))).toBe(true);
    } finally {
      await pool.end();
    }
  });
});

/** A socket whose connect fails as a host gone from the network does (a restarted container's address). */
class UnreachableSocket extends net.Socket {
  override connect(...args: unknown[]): this {
    const [port, host] = args as [number, string];
    setImmediate(() => this.destroy(Object.assign(new Error(`connect EHOSTUNREACH ${host}:${port}`), { code: "EHOSTUNREACH", errno: -113, syscall: "connect", address: host, port })));
    return this;
  }
}

describe("a notification listener", () => {
  it("whose first connection is accepted and never answered gives that attempt up, tries again and listens", async () => {
    proxy = await startCuttingProxy(db.url);
    proxy.hang(true);
    const warnings: string[] = [];
    const notified: (string | undefined)[] = [];
    const listening = listenForNotifications({ url: proxy.url, channel: "failures_listener", onNotify: (payload) => notified.push(payload), logger: { warn: (_obj, msg) => warnings.push(msg) }, retryMs: 50, attemptTimeoutMs: 300 });
    await sleep(500);
    proxy.hang(false);
    const listener = await listening;
    try {
      expect(warnings.length).toBeGreaterThanOrEqual(1);
      expect(warnings[0]).toBe("notification connection failed; reconnecting");
      const admin = new pg.Client({ connectionString: db.url });
      await admin.connect();
      await admin.query("SELECT pg_notify('failures_listener', 'hello')");
      await admin.end();
      for (let i = 0; i < 100 && !notified.includes("hello"); i++) await sleep(20);
      expect(notified).toEqual([undefined, "hello"]);
    } finally {
      await listener.close();
    }
  });
});

describe("a host that is unreachable (a PostgreSQL container restarted under its port mapping)", () => {
  it("is unavailable through Prisma and node-postgres, with 08001 and the socket error as its cause", async () => {
    // The adapter maps four socket codes and rethrows EHOSTUNREACH; Prisma then copied its code
    // without the syscall, and the fault suite's restart in a container answered 500 (CI, issue 26).
    const pool = new ConnectionAwarePool({ connectionString: db.url, connectionTimeoutMillis: 2_000, stream: () => new UnreachableSocket() });
    const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }), errorFormat: "minimal" });
    clients.push(client);
    const viaPrisma = await failureOf(client.ledgerEntry.findFirst());
    expect(isDatabaseUnavailable(viaPrisma)).toBe(true);
    expect(sqlStateOf(viaPrisma)).toBe("08001");
    const viaPool = await failureOf(new ConnectionAwarePool({ connectionString: db.url, stream: () => new UnreachableSocket() }).query("SELECT 1"));
    expect(sqlStateOf(viaPool)).toBe("08001");
    expect((viaPool as Error).cause).toMatchObject({ code: "EHOSTUNREACH" });
  });

  it("Prisma's copy of an unmapped socket code is read without its syscall", () => {
    const copied = Object.assign(new Error("connect EHOSTUNREACH 127.0.0.1:5432"), { code: "EHOSTUNREACH", clientVersion: "7.10.0", meta: { modelName: "IdempotencyRecord" } });
    expect(isDatabaseUnavailable(copied)).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("x"), { code: "EHOSTUNREACH" }))).toBe(false);
  });
});

describe("what is not an outage stays what it is", () => {
  it("a failed statement, a unique violation and a lock timeout keep their SQLSTATE and are not unavailable", async () => {
    const client = clientAt(db.url);
    const divided = await failureOf(client.$queryRaw`SELECT 1 / 0`);
    expect(sqlStateOf(divided)).toBe("22012");
    expect(isDatabaseUnavailable(divided)).toBe(false);

    const eventId = randomUUID();
    await client.ledgerEntry.create({ data: { eventId, amount: 1 } });
    const duplicate = await failureOf(client.ledgerEntry.create({ data: { eventId, amount: 2 } }));
    expect(isDatabaseUnavailable(duplicate)).toBe(false);
    expect(violatedConstraintOf(duplicate)).toBe("ledger_entry_event_id_key");
    const rawDuplicate = await failureOf(client.$executeRaw`INSERT INTO ledger_entry (event_id, amount) VALUES (${eventId}::uuid, 3)`);
    expect(sqlStateOf(rawDuplicate)).toBe("23505");
    expect(violatedConstraintOf(rawDuplicate)).toBe("ledger_entry_event_id_key");

    const locked = await failureOf(
      withTransaction(client, async (tx) => {
        await tx.$queryRaw`SELECT pg_advisory_xact_lock(42)::text`;
        await withTransaction(client, (other) => other.$queryRaw`SELECT set_config('lock_timeout', '50ms', true), pg_advisory_xact_lock(42)::text`);
      }),
    );
    expect(sqlStateOf(locked)).toBe("55P03");
    expect(isDatabaseUnavailable(locked)).toBe(false);
  });

  it("a bug is not an outage", () => {
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined"))).toBe(false);
    expect(isDatabaseUnavailable(new Error("Connection terminated unexpectedly"))).toBe(false);
  });
});
