import { randomUUID } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma, PrismaClient } from "../../events/test/prisma/generated/client";
import { disconnect, migrate, openDatabase, openPool, PgSql, prismaClientOn, sqlStateOf, TransactionTimeoutError, violatedConstraintOf, type RawSql } from "../src/index";
import { createTestDatabase, type TestDatabase } from "./test-database";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../events/test/prisma/migrations");

let db: TestDatabase;
let prisma: PrismaClient;
let sql: PgSql;

beforeAll(async () => {
  db = await createTestDatabase("pg_sql");
  await migrate(db.url, MIGRATIONS);
  // One pool under both, as openDatabase wires them.
  const pool = openPool({ url: db.url, maxConnections: 4 });
  prisma = prismaClientOn(PrismaClient, pool, { endsPool: true });
  sql = new PgSql(pool);
  await sql.$executeRawUnsafe(`CREATE TABLE typed (
    id uuid PRIMARY KEY, small int2, whole int4, big int8, real8 float8, flag bool, label text,
    stamp timestamp(3), stamptz timestamptz(3), day date, bytes bytea, doc json, docb jsonb,
    labels text[], ids uuid[], bigs int8[], stamps timestamp(3)[])`);
});

afterAll(async () => {
  await disconnect(prisma);
  await db.drop();
});

/** Bytes compared by content: Prisma answers a Uint8Array, pg a Buffer (a Uint8Array too). */
function comparable(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) return { bytes: [...new Uint8Array(value.buffer, value.byteOffset, value.byteLength)] };
  if (Array.isArray(value)) return value.map(comparable);
  if (value instanceof Date || value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
}

/** Runs `fn` with the process in another time zone, so that nothing can pass by reading UTC as local. */
async function inZone<T>(zone: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env.TZ;
  process.env.TZ = zone;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
}

const INSERT = `INSERT INTO typed (id, small, whole, big, real8, flag, label, stamp, stamptz, day, bytes, doc, docb, labels, ids, bigs, stamps)
  VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9, $10::date, $11, $12::json, $13::jsonb, $14::text[], $15::uuid[], $16::int8[], $17::timestamp(3)[])`;

function values(id: string): unknown[] {
  const at = new Date("2026-11-28T23:30:01.234Z");
  return [id, 7, 70_000, 9_007_199_254_740_993n, 2.5, true, "نص", at, at, "2026-11-28", Buffer.from([0, 1, 255]), JSON.stringify({ a: [1, "b"] }), JSON.stringify({ c: null }), ["x", "y,z", null], [randomUUID()], [1n, 2n ** 62n], [at]];
}

describe("PgSql answers what Prisma's raw API answers", () => {
  it("reads every column type the services use to the same values, in a zone that is not UTC", async () => {
    await inZone("Asia/Riyadh", async () => {
      const viaPrisma = randomUUID();
      const viaPg = randomUUID();
      await prisma.$executeRawUnsafe(INSERT, ...values(viaPrisma));
      await sql.$executeRawUnsafe(INSERT, ...values(viaPg));
      for (const id of [viaPrisma, viaPg]) {
        const select = `SELECT small, whole, big, real8, flag, label, stamp, stamptz, day, bytes, doc, docb, labels, bigs, stamps, NULL::int8 AS nothing FROM typed WHERE id = $1::uuid`;
        const fromPrisma = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(select, id);
        const fromPg = await sql.$queryRawUnsafe<Record<string, unknown>[]>(select, id);
        expect(comparable(fromPg)).toEqual(comparable(fromPrisma));
        const [row] = fromPg;
        expect(row?.big).toBe(9_007_199_254_740_993n);
        expect(row?.bigs).toEqual([1n, 2n ** 62n]);
        expect(row?.stamp).toEqual(new Date("2026-11-28T23:30:01.234Z"));
        expect(row?.stamptz).toEqual(new Date("2026-11-28T23:30:01.234Z"));
        expect(row?.day).toEqual(new Date("2026-11-28T00:00:00Z"));
        expect(row?.stamps).toEqual([new Date("2026-11-28T23:30:01.234Z")]);
        expect([...(row?.bytes as Uint8Array)]).toEqual([0, 1, 255]);
      }
      // What was written through pg is what was written through Prisma, as the database sees it.
      const [same] = await sql.$queryRawUnsafe<{ same: boolean }[]>(
        `SELECT (SELECT row(small, whole, big, real8, flag, label, stamp, stamptz, day, bytes, doc::text, docb, labels, bigs, stamps) FROM typed WHERE id = $1::uuid)
              = (SELECT row(small, whole, big, real8, flag, label, stamp, stamptz, day, bytes, doc::text, docb, labels, bigs, stamps) FROM typed WHERE id = $2::uuid) AS same`,
        viaPrisma,
        viaPg,
      );
      expect(same?.same).toBe(true);
    });
  });

  it("takes tagged templates and Prisma.sql objects, nested fragments included", async () => {
    const id = randomUUID();
    await sql.$executeRaw`INSERT INTO typed (id, label) VALUES (${id}::uuid, ${"tagged"})`;
    const column = Prisma.sql`label`;
    expect(await sql.$queryRaw(Prisma.sql`SELECT ${column} FROM typed WHERE id = ${id}::uuid`)).toEqual([{ label: "tagged" }]);
    expect(await sql.$queryRaw`SELECT ${column} FROM typed WHERE id = ${id}::uuid`).toEqual(await prisma.$queryRaw`SELECT ${column} FROM typed WHERE id = ${id}::uuid`);
    expect(await sql.$executeRaw`UPDATE typed SET label = ${"again"} WHERE id = ${id}::uuid`).toBe(1);
  });

  it("fails a unique violation with the SQLSTATE and constraint the services map", async () => {
    const id = randomUUID();
    await sql.$executeRawUnsafe(`INSERT INTO typed (id) VALUES ($1::uuid)`, id);
    const fromPg = await sql.$executeRawUnsafe(`INSERT INTO typed (id) VALUES ($1::uuid)`, id).catch((e: unknown) => e);
    const fromPrisma = await prisma.$executeRawUnsafe(`INSERT INTO typed (id) VALUES ($1::uuid)`, id).catch((e: unknown) => e);
    expect(sqlStateOf(fromPg)).toBe("23505");
    expect(violatedConstraintOf(fromPg)).toBe("typed_pkey");
    expect([sqlStateOf(fromPrisma), violatedConstraintOf(fromPrisma)]).toEqual([sqlStateOf(fromPg), violatedConstraintOf(fromPg)]);
  });
});

describe("PgSql transactions", () => {
  const count = async (label: string) => Number((await sql.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM typed WHERE label = $1`, label))[0]?.n);

  it("commit when the callback resolves and roll back, passing the rejection on, when it rejects", async () => {
    const label = randomUUID();
    expect(await sql.transaction(async (tx) => tx.$executeRawUnsafe(`INSERT INTO typed (id, label) VALUES ($1::uuid, $2)`, randomUUID(), label))).toBe(1);
    const failure = new Error("handler failed");
    await expect(
      sql.transaction(async (tx) => {
        await tx.$executeRawUnsafe(`INSERT INTO typed (id, label) VALUES ($1::uuid, $2)`, randomUUID(), label);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await count(label)).toBe(1);
  });

  it("run at the isolation level asked for, on one connection", async () => {
    const seen = await sql.transaction(
      async (tx) => {
        const [level] = await tx.$queryRawUnsafe<{ transaction_isolation: string }[]>(`SHOW transaction_isolation`);
        const [a] = await tx.$queryRawUnsafe<{ pid: number }[]>(`SELECT pg_backend_pid() AS pid`);
        const [b] = await tx.$queryRawUnsafe<{ pid: number }[]>(`SELECT pg_backend_pid() AS pid`);
        return { level: level?.transaction_isolation, samePid: a?.pid === b?.pid };
      },
      { isolationLevel: "Serializable" },
    );
    expect(seen).toEqual({ level: "serializable", samePid: true });
  });

  it("give up on a callback that runs past timeoutMs: its later statements fail and its writes roll back", async () => {
    const label = randomUUID();
    const outcome = await sql
      .transaction(
        async (tx) => {
          await tx.$executeRawUnsafe(`INSERT INTO typed (id, label) VALUES ($1::uuid, $2)`, randomUUID(), label);
          await new Promise((r) => setTimeout(r, 150));
          await tx.$executeRawUnsafe(`INSERT INTO typed (id, label) VALUES ($1::uuid, $2)`, randomUUID(), label);
        },
        { timeoutMs: 50 },
      )
      .catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(TransactionTimeoutError);
    expect(await count(label)).toBe(0);
    // The connection went back to the pool usable.
    expect(await sql.transaction(async (tx) => tx.$queryRawUnsafe(`SELECT 1 AS one`))).toEqual([{ one: 1 }]);
  });
});

describe("openDatabase", () => {
  it("owns the pool the raw statements use: an idle connection that breaks is a warning, and close ends the pool, Prisma unused", async () => {
    const warnings: string[] = [];
    const opened = openDatabase(PrismaClient, { url: db.url, maxConnections: 2, logger: { warn: (_obj, msg) => warnings.push(msg) } });
    const [me] = await opened.sql.$queryRawUnsafe<{ pid: number }[]>(`SELECT pg_backend_pid() AS pid`);
    // The connection now idles in the pool; end it from the server, as a restart would.
    await sql.$queryRawUnsafe(`SELECT pg_terminate_backend($1::int)`, me?.pid);
    await expect.poll(() => warnings).toEqual(["idle database connection failed"]);
    // A new connection replaces it.
    expect(await opened.sql.$queryRawUnsafe(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    await Promise.all([opened.close(), opened.close()]);
    const after = await opened.sql.$queryRawUnsafe(`SELECT 1`).catch((e: unknown) => e);
    expect(sqlStateOf(after)).toBe("08001");
    expect(String((after as Error).cause)).toMatch(/after calling end/);
  });
});

describe("PgSql statements", () => {
  const preparedOnThisConnection = (tx: RawSql, marker: string) =>
    tx.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE '%' || $1 || '%' AND statement NOT LIKE '%pg_prepared_statements%'`, marker);

  it("run as prepared statements, parsed once per connection", async () => {
    const marker = `m${randomUUID().slice(0, 8)}`;
    const counts = await sql.transaction(async (tx) => {
      await tx.$queryRawUnsafe(`SELECT $1::text AS ${marker}`, "a");
      await tx.$queryRawUnsafe(`SELECT $1::text AS ${marker}`, "b");
      return preparedOnThisConnection(tx, marker);
    });
    expect(counts[0]?.n).toBe(1n);
  });

  it("stop naming new texts past a bound, so statements built with data in them cannot grow every connection without end", async () => {
    // More distinct texts than the bound, then one more: that one runs unnamed.
    await Promise.all(Array.from({ length: 520 }, (_, i) => sql.$queryRawUnsafe(`SELECT ${i} AS filler_${i}`)));
    const marker = `late${randomUUID().slice(0, 8)}`;
    const counts = await sql.transaction(async (tx) => {
      await tx.$queryRawUnsafe(`SELECT $1::text AS ${marker}`, "a");
      return preparedOnThisConnection(tx, marker);
    });
    expect(counts[0]?.n).toBe(0n);
  });
});
