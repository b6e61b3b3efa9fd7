/**
 * One database per service on one PostgreSQL server, each migrated with its own committed
 * migrations: `tsx packages/testing/src/migrate-all.ts [adminUrl] [--db-prefix tawsil_]` (adminUrl defaults
 * to DATABASE_ADMIN_URL, then postgres://postgres@127.0.0.1:5432/postgres).
 */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { databaseUrl, ensureDatabase, migrate } from "../../db/src/index";
import { SERVICES_WITH_DATABASE, type DatabaseServiceName } from "../../topology/src";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const DEFAULT_PREFIX = "tawsil_";

export interface MigratedDatabase {
  /** e.g. `tawsil_shipment`. */
  readonly name: string;
  /** The service's DATABASE_URL: the admin url pointed at its database. */
  readonly url: string;
  /** Migrations this call applied; empty when the database was already current. */
  readonly applied: readonly string[];
}

/**
 * Creates any missing database of a service that owns data (`<dbPrefix><service>`) through `adminUrl` and applies the
 * service's pending migrations. Services run in parallel: they are separate databases, and
 * advisory locks are per database, so they do not wait on one another.
 */
export async function migrateAll(
  adminUrl: string,
  opts: { dbPrefix?: string } = {},
): Promise<Record<DatabaseServiceName, MigratedDatabase>> {
  const prefix = opts.dbPrefix ?? DEFAULT_PREFIX;
  const databases = {} as Record<DatabaseServiceName, MigratedDatabase>;
  await Promise.all(
    SERVICES_WITH_DATABASE.map(async (service) => {
      const name = `${prefix}${service}`;
      await ensureDatabase(adminUrl, name);
      const url = databaseUrl(adminUrl, name);
      const { applied } = await migrate(url, path.join(ROOT, "services", service, "prisma", "migrations"));
      databases[service] = { name, url, applied };
    }),
  );
  return databases;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const prefixAt = args.indexOf("--db-prefix");
  const dbPrefix = prefixAt >= 0 ? args.splice(prefixAt, 2)[1] : undefined;
  const adminUrl = args[0] ?? process.env.DATABASE_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  try {
    const databases = await migrateAll(adminUrl, dbPrefix === undefined ? {} : { dbPrefix });
    for (const [service, database] of Object.entries(databases)) {
      const what = database.applied.length === 0 ? "up to date" : `applied ${database.applied.join(", ")}`;
      console.log(`${service}: ${database.name} ${what}`);
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
