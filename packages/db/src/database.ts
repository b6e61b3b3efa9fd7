import pg from "pg";
import { sqlStateOf } from "./failures";
import { withConnection } from "./pg-connection";

/** `baseUrl` with its database name replaced by `name`; credentials, host and query are kept. */
export function databaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/**
 * Creates database `name` unless it exists, connecting through `adminUrl` (any database on the
 * same server, usually `postgres`). Returns whether this call created it.
 *
 * Safe when several processes race (parallel test workers, replicas starting together):
 * PostgreSQL has no CREATE DATABASE IF NOT EXISTS, so the loser of the race gets
 * duplicate_database (42P04) or, when both pass the catalog check at once, a unique violation on
 * pg_database (23505); both mean "it exists now", which is all the caller asked for.
 */
export async function ensureDatabase(adminUrl: string, name: string): Promise<boolean> {
  return withConnection(adminUrl, async (client) => {
    const existing = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (existing.rowCount !== 0) return false;
    try {
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      return true;
    } catch (error) {
      const state = sqlStateOf(error);
      if (state === "42P04" || state === "23505") return false;
      throw error;
    }
  });
}

/**
 * Drops database `name` if it exists, terminating its open connections first (WITH (FORCE),
 * PostgreSQL 13+): a test that leaked a pool must not make cleanup fail.
 */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withConnection(adminUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  });
}
