import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { MigrationError } from "./migration-error";
import { migrationChecksum } from "./migration-checksum";

export interface MigrationFile {
  /** Folder name, e.g. `20261125224550_init`; the key in `_prisma_migrations.migration_name`. */
  name: string;
  script: string;
  checksum: string;
}

/**
 * Lists `<dir>/<name>/migration.sql` the way the Prisma CLI does: every sub-folder is a
 * migration (files such as migration_lock.toml are skipped), ordered by `localeCompare` of the
 * folder name, read as UTF-8 text. A folder without migration.sql is an error, as in Prisma,
 * rather than a migration silently skipped.
 */
export async function readMigrationFiles(dir: string): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
  return Promise.all(
    names.map(async (name) => {
      const path = join(dir, name, "migration.sql");
      const script = await readFile(path, "utf8").catch((error: unknown) => {
        throw new MigrationError("missing-script", `Migration ${name} has no readable ${path}`, name, { cause: error });
      });
      return { name, script, checksum: migrationChecksum(script) };
    }),
  );
}
