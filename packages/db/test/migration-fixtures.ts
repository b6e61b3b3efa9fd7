import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** A throw-away migrations folder laid out like prisma/migrations. */
export interface MigrationsDir {
  path: string;
  write(name: string, sql: string): Promise<void>;
  remove(): Promise<void>;
}

export async function createMigrationsDir(migrations: Record<string, string> = {}): Promise<MigrationsDir> {
  const dir = await mkdtemp(path.join(tmpdir(), "tawsil-migrations-"));
  const write = async (name: string, sql: string) => {
    await mkdir(path.join(dir, name), { recursive: true });
    await writeFile(path.join(dir, name, "migration.sql"), sql);
  };
  await writeFile(path.join(dir, "migration_lock.toml"), 'provider = "postgresql"\n');
  for (const [name, sql] of Object.entries(migrations)) await write(name, sql);
  return { path: dir, write, remove: () => rm(dir, { recursive: true, force: true }) };
}
