import { randomUUID } from "node:crypto";
import type pg from "pg";
import { withMigrateLock } from "./advisory-lock";
import { checksumMatches } from "./migration-checksum";
import { MigrationError } from "./migration-error";
import { readMigrationFiles, type MigrationFile } from "./migration-files";
import { MigrationsTable, type MigrationRow } from "./migrations-table";
import { withConnection } from "./pg-connection";

export interface MigrateOptions {
  /** How long to wait for a concurrent runner to release the migrate lock. Default 60 s. */
  lockTimeoutMs?: number;
  /** Progress lines ("Applying 2026..._init"); silent by default. */
  log?: (line: string) => void;
}

export interface MigrateResult {
  /** Names of the migrations this run applied, in order; empty when the database was current. */
  applied: string[];
}

const DEFAULT_LOCK_TIMEOUT_MS = 60_000;

/**
 * Applies the migrations under `migrationsDir` (`<name>/migration.sql`, in name order) that the
 * database's `_prisma_migrations` table does not record as applied, keeping that table exactly
 * as `prisma migrate deploy` would.
 *
 * Differences from Prisma, all on the safe side: each migration runs in its own transaction
 * together with its history row, so a failing migration leaves neither a partial change nor a
 * "failed" row behind and a fixed file can simply be re-run; and applied migrations whose file
 * changed are refused instead of ignored. Consequently a migration must not contain statements
 * that cannot run inside a transaction (CREATE INDEX CONCURRENTLY, VACUUM).
 *
 * Refuses to start (MigrationError) when history holds a failed migration, when an applied
 * migration's checksum differs from its file, or when the database has tables but no history.
 */
export async function migrate(
  databaseUrl: string,
  migrationsDir: string,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const files = await readMigrationFiles(migrationsDir);
  const log = options.log ?? (() => undefined);
  return withConnection(databaseUrl, (client) =>
    withMigrateLock(client, options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS, async () => {
      const table = await MigrationsTable.forCurrentSchema(client);
      const history = await readHistory(table);
      const pending = pendingMigrations(files, history);
      const applied: string[] = [];
      for (const file of pending) {
        log(`Applying ${file.name}`);
        await applyOne(client, table, file);
        applied.push(file.name);
      }
      return { applied };
    }),
  );
}

/** Creates the history table on first use, as Prisma does, refusing a database it didn't build. */
async function readHistory(table: MigrationsTable): Promise<MigrationRow[]> {
  const tables = await table.tableNames();
  if (tables.includes("_prisma_migrations")) return table.rows();
  if (tables.length > 0) {
    throw new MigrationError(
      "database-not-empty",
      `The database already has tables (${tables.join(", ")}) but no _prisma_migrations history; ` +
        "baseline it (prisma migrate resolve --applied) before migrating",
    );
  }
  await table.create();
  return [];
}

function pendingMigrations(files: MigrationFile[], history: MigrationRow[]): MigrationFile[] {
  const failed = history.filter((row) => row.finishedAt === null && row.rolledBackAt === null);
  if (failed.length > 0) {
    const details = failed.map((row) => describeFailed(row)).join("\n");
    throw new MigrationError(
      "failed-migration-in-history",
      `Found failed migrations in the target database; no new migration will be applied until they are ` +
        `resolved (prisma migrate resolve):\n${details}`,
      failed[0]?.migrationName,
    );
  }
  // A migration resolved as rolled back counts as not applied, so it runs again (Prisma's rule).
  const applied = history.filter((row) => row.rolledBackAt === null);
  for (const row of applied) {
    const file = files.find((candidate) => candidate.name === row.migrationName);
    if (file && !checksumMatches(file.script, row.checksum)) {
      throw new MigrationError(
        "checksum-mismatch",
        `Migration ${row.migrationName} was modified after it was applied (recorded checksum ${row.checksum}, ` +
          `file checksum ${file.checksum}); add a new migration instead of editing an applied one`,
        row.migrationName,
      );
    }
  }
  const appliedNames = new Set(applied.map((row) => row.migrationName));
  return files.filter((file) => !appliedNames.has(file.name));
}

function describeFailed(row: MigrationRow): string {
  const logs = row.logs?.trim() ? ` with the following logs:\n${row.logs.trim()}` : "";
  return `The ${row.migrationName} migration started at ${row.startedAt.toISOString()} failed${logs}`;
}

async function applyOne(client: pg.Client, table: MigrationsTable, file: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query("BEGIN");
  try {
    await table.recordStarted(id, file.name, file.checksum);
    // No parameters: node-postgres then uses the simple query protocol, which accepts a script
    // of many statements, exactly as Prisma sends it.
    await client.query(file.script);
    await table.recordFinished(id);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(
      "apply-failed",
      `Migration ${file.name} failed and was rolled back: ${reason}`,
      file.name,
      { cause: error },
    );
  }
}
