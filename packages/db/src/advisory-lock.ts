import type pg from "pg";
import { MigrationError } from "./migration-error";
import { sqlStateOf } from "./failures";

/**
 * The advisory lock key Prisma's schema engine takes before migrating PostgreSQL
 * (`SELECT pg_advisory_lock(72707369)`, found in the engine shipped with prisma 7.10). Taking the
 * same key means this runner and `prisma migrate` never migrate one database at the same time.
 */
export const PRISMA_MIGRATE_LOCK_KEY = 72707369;

/**
 * Holds the session-level migrate lock on `client` while `fn` runs. Waits at most `timeoutMs`
 * for a concurrent runner to finish (lock_timeout applies to advisory locks too), then fails
 * with a MigrationError rather than hanging a deployment forever.
 */
export async function withMigrateLock<T>(client: pg.Client, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  await client.query("SELECT set_config('lock_timeout', $1, false)", [`${Math.max(1, Math.round(timeoutMs))}ms`]);
  try {
    await client.query(`SELECT pg_advisory_lock(${PRISMA_MIGRATE_LOCK_KEY})`);
  } catch (error) {
    if (sqlStateOf(error) !== "55P03") throw error;
    throw new MigrationError(
      "lock-timeout",
      `Timed out after ${timeoutMs} ms waiting for the migrate advisory lock ${PRISMA_MIGRATE_LOCK_KEY}; ` +
        "another migration run holds it",
      undefined,
      { cause: error },
    );
  } finally {
    await client.query("RESET lock_timeout");
  }
  try {
    return await fn();
  } finally {
    // Closing the session would release it too; unlocking explicitly frees waiters sooner.
    await client.query(`SELECT pg_advisory_unlock(${PRISMA_MIGRATE_LOCK_KEY})`).catch(() => undefined);
  }
}
