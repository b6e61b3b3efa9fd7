import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrate, MigrationError, PRISMA_MIGRATE_LOCK_KEY } from "../src/index";
import { createMigrationsDir, type MigrationsDir } from "./migration-fixtures";
import { createTestDatabase, type TestDatabase } from "./test-database";

// Names sort differently from the order they are written in, so ordering is really tested.
const FIRST = "20260101000000_create_parcel";
const SECOND = "20260102000000_add_weight";
const THIRD = "20260110000000_index_weight";
const MIGRATIONS: Record<string, string> = {
  [THIRD]: 'CREATE INDEX "parcel_weight_idx" ON "parcel"("weight");\n',
  [FIRST]: '-- CreateTable\nCREATE TABLE "parcel" (\n    "id" SERIAL NOT NULL,\n    CONSTRAINT "parcel_pkey" PRIMARY KEY ("id")\n);\n',
  [SECOND]: 'ALTER TABLE "parcel" ADD COLUMN "weight" INTEGER NOT NULL DEFAULT 0;\n',
};

interface HistoryRow {
  id: string;
  checksum: string;
  migration_name: string;
  logs: string | null;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  applied_steps_count: number;
}

let db: TestDatabase;
let dir: MigrationsDir;

beforeEach(async () => {
  db = await createTestDatabase("migrate");
});

afterEach(async () => {
  await dir?.remove();
  await db.drop();
});

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

const history = () => query<HistoryRow>("SELECT * FROM _prisma_migrations ORDER BY started_at");
const tableExists = async (name: string) =>
  (await query<{ found: boolean }>("SELECT to_regclass($1) IS NOT NULL AS found", [name]))[0]?.found;

describe("migrate", () => {
  it("applies pending migrations in name order and records them as Prisma does", async () => {
    dir = await createMigrationsDir(MIGRATIONS);

    const result = await migrate(db.url, dir.path);

    expect(result.applied).toEqual([FIRST, SECOND, THIRD]);
    const rows = await history();
    expect(rows.map((row) => row.migration_name)).toEqual([FIRST, SECOND, THIRD]);
    for (const row of rows) {
      const bytes = await readFile(path.join(dir.path, row.migration_name, "migration.sql"));
      expect(row.checksum).toBe(createHash("sha256").update(bytes).digest("hex"));
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
    expect(await query("SELECT indexname FROM pg_indexes WHERE tablename = 'parcel' ORDER BY 1")).toEqual([
      { indexname: "parcel_pkey" },
      { indexname: "parcel_weight_idx" },
    ]);
  });

  it("creates _prisma_migrations with the columns and types Prisma's engine creates", async () => {
    dir = await createMigrationsDir();

    await migrate(db.url, dir.path);

    const columns = await query(
      `SELECT column_name, data_type, character_maximum_length AS length, is_nullable, column_default
         FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns).toEqual([
      { column_name: "id", data_type: "character varying", length: 36, is_nullable: "NO", column_default: null },
      { column_name: "checksum", data_type: "character varying", length: 64, is_nullable: "NO", column_default: null },
      { column_name: "finished_at", data_type: "timestamp with time zone", length: null, is_nullable: "YES", column_default: null },
      { column_name: "migration_name", data_type: "character varying", length: 255, is_nullable: "NO", column_default: null },
      { column_name: "logs", data_type: "text", length: null, is_nullable: "YES", column_default: null },
      { column_name: "rolled_back_at", data_type: "timestamp with time zone", length: null, is_nullable: "YES", column_default: null },
      { column_name: "started_at", data_type: "timestamp with time zone", length: null, is_nullable: "NO", column_default: "now()" },
      { column_name: "applied_steps_count", data_type: "integer", length: null, is_nullable: "NO", column_default: "0" },
    ]);
    expect(await query("SELECT conname FROM pg_constraint WHERE conrelid = '_prisma_migrations'::regclass")).toEqual([
      { conname: "_prisma_migrations_pkey" },
    ]);
  });

  it("applies nothing on a second run", async () => {
    dir = await createMigrationsDir(MIGRATIONS);
    await migrate(db.url, dir.path);
    const before = await history();

    const result = await migrate(db.url, dir.path);

    expect(result.applied).toEqual([]);
    expect(await history()).toEqual(before);
  });

  it("applies only the migrations added since the last run", async () => {
    dir = await createMigrationsDir({ [FIRST]: MIGRATIONS[FIRST]!, [SECOND]: MIGRATIONS[SECOND]! });
    await migrate(db.url, dir.path);
    await dir.write(THIRD, MIGRATIONS[THIRD]!);

    expect((await migrate(db.url, dir.path)).applied).toEqual([THIRD]);
  });

  it("refuses to run when an applied migration was edited, naming it, and applies nothing", async () => {
    dir = await createMigrationsDir({ [FIRST]: MIGRATIONS[FIRST]!, [SECOND]: MIGRATIONS[SECOND]! });
    await migrate(db.url, dir.path);
    await dir.write(SECOND, 'ALTER TABLE "parcel" ADD COLUMN "weight" BIGINT NOT NULL DEFAULT 0;\n');
    await dir.write(THIRD, MIGRATIONS[THIRD]!);

    const error = await migrate(db.url, dir.path).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(MigrationError);
    expect(error).toMatchObject({ kind: "checksum-mismatch", migrationName: SECOND });
    expect((error as Error).message).toContain(`Migration ${SECOND} was modified after it was applied`);
    expect((await history()).map((row) => row.migration_name)).toEqual([FIRST, SECOND]);
    expect(await tableExists("parcel_weight_idx")).toBe(false);
  });

  it("accepts an applied migration whose line endings were converted, as Prisma does", async () => {
    dir = await createMigrationsDir({ [FIRST]: MIGRATIONS[FIRST]! });
    await migrate(db.url, dir.path);
    await dir.write(FIRST, MIGRATIONS[FIRST]!.replaceAll("\n", "\r\n"));

    expect((await migrate(db.url, dir.path)).applied).toEqual([]);
  });

  it("rolls a failing migration back entirely, records nothing for it, and applies the fixed file later", async () => {
    const broken = 'CREATE TABLE "half_done" ("id" INTEGER);\nALTER TABLE "no_such_table" ADD COLUMN "x" INTEGER;\n';
    dir = await createMigrationsDir({ [FIRST]: MIGRATIONS[FIRST]!, [SECOND]: broken, [THIRD]: MIGRATIONS[THIRD]! });

    const error = await migrate(db.url, dir.path).catch((caught: unknown) => caught);

    expect(error).toMatchObject({ kind: "apply-failed", migrationName: SECOND });
    expect((error as Error).message).toContain(`Migration ${SECOND} failed and was rolled back`);
    expect((error as Error).message).toContain('relation "no_such_table" does not exist');
    expect(await tableExists("half_done")).toBe(false);
    expect((await history()).map((row) => row.migration_name)).toEqual([FIRST]);

    await dir.write(SECOND, MIGRATIONS[SECOND]!);
    expect((await migrate(db.url, dir.path)).applied).toEqual([SECOND, THIRD]);
  });

  it("refuses to run while history holds a failed migration, and re-applies it once resolved as rolled back", async () => {
    dir = await createMigrationsDir({ [FIRST]: MIGRATIONS[FIRST]! });
    // What `prisma migrate deploy` leaves behind when a script fails halfway.
    await query(
      `CREATE TABLE _prisma_migrations (id VARCHAR(36) PRIMARY KEY NOT NULL, checksum VARCHAR(64) NOT NULL,
         finished_at TIMESTAMPTZ, migration_name VARCHAR(255) NOT NULL, logs TEXT, rolled_back_at TIMESTAMPTZ,
         started_at TIMESTAMPTZ NOT NULL DEFAULT now(), applied_steps_count INTEGER NOT NULL DEFAULT 0);
       INSERT INTO _prisma_migrations (id, checksum, migration_name, logs)
       VALUES ('00000000-0000-4000-8000-000000000000', 'x', '${FIRST}', 'syntax error at or near "CREAT"')`,
    );

    const error = await migrate(db.url, dir.path).catch((caught: unknown) => caught);

    expect(error).toMatchObject({ kind: "failed-migration-in-history", migrationName: FIRST });
    expect((error as Error).message).toContain(`The ${FIRST} migration started at`);
    expect((error as Error).message).toContain('syntax error at or near "CREAT"');
    expect(await tableExists("parcel")).toBe(false);

    // `prisma migrate resolve --rolled-back` sets rolled_back_at; then the migration runs again.
    await query("UPDATE _prisma_migrations SET rolled_back_at = now()");
    expect((await migrate(db.url, dir.path)).applied).toEqual([FIRST]);
  });

  it("refuses a database that has tables but no migration history", async () => {
    dir = await createMigrationsDir(MIGRATIONS);
    await query('CREATE TABLE "legacy" ("id" INTEGER)');

    await expect(migrate(db.url, dir.path)).rejects.toMatchObject({ kind: "database-not-empty" });
    expect(await tableExists("_prisma_migrations")).toBe(false);
  });

  it("fails with the migration's name when its folder has no migration.sql", async () => {
    dir = await createMigrationsDir({ [FIRST]: MIGRATIONS[FIRST]! });
    await dir.write(SECOND, "");
    const { rm } = await import("node:fs/promises");
    await rm(path.join(dir.path, SECOND, "migration.sql"));

    await expect(migrate(db.url, dir.path)).rejects.toMatchObject({ kind: "missing-script", migrationName: SECOND });
  });
});

describe("migrate under concurrency", () => {
  it("applies each migration exactly once when two runners start together", async () => {
    // The sleep keeps the first runner inside its transaction while the second arrives.
    dir = await createMigrationsDir({
      [FIRST]: `${MIGRATIONS[FIRST]!}SELECT pg_sleep(0.5);\n`,
      [SECOND]: MIGRATIONS[SECOND]!,
      [THIRD]: MIGRATIONS[THIRD]!,
    });

    const results = await Promise.all([migrate(db.url, dir.path), migrate(db.url, dir.path)]);

    expect(results.flatMap((result) => result.applied).sort()).toEqual([FIRST, SECOND, THIRD]);
    expect(results.map((result) => result.applied.length).sort()).toEqual([0, 3]);
    expect((await history()).map((row) => row.migration_name)).toEqual([FIRST, SECOND, THIRD]);
  });

  it("waits for Prisma's own migrate lock and gives up after the timeout", async () => {
    dir = await createMigrationsDir(MIGRATIONS);
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${PRISMA_MIGRATE_LOCK_KEY})`);

      await expect(migrate(db.url, dir.path, { lockTimeoutMs: 300 })).rejects.toMatchObject({ kind: "lock-timeout" });
      expect(await tableExists("_prisma_migrations")).toBe(false);

      const waiting = migrate(db.url, dir.path, { lockTimeoutMs: 10_000 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await holder.query(`SELECT pg_advisory_unlock(${PRISMA_MIGRATE_LOCK_KEY})`);
      expect((await waiting).applied).toEqual([FIRST, SECOND, THIRD]);
    } finally {
      await holder.end();
    }
  });
});
