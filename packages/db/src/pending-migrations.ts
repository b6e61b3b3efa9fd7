import { readMigrationFiles } from "./migration-files";
import { MigrationsTable } from "./migrations-table";
import { withConnection } from "./pg-connection";

/**
 * The committed migrations the database does not record as applied, read with SELECTs only: a
 * runtime role, which may not change the schema, can ask whether its schema is current.
 */
export async function pendingMigrations(databaseUrl: string, migrationsDir: string): Promise<string[]> {
  const files = await readMigrationFiles(migrationsDir);
  const applied = await withConnection(databaseUrl, async (client) => {
    const table = await MigrationsTable.forCurrentSchema(client);
    if (!(await table.tableNames()).includes("_prisma_migrations")) return new Set<string>();
    const rows = await table.rows();
    return new Set(rows.filter((row) => row.finishedAt !== null && row.rolledBackAt === null).map((row) => row.migrationName));
  });
  return files.map((file) => file.name).filter((name) => !applied.has(name));
}
