import { databaseUrl, dropDatabase, ensureDatabase, migrate } from "@tawsil/db";

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh database called `name` on the admin URL's server, migrated from `migrations`; dropped by `drop()`. */
export async function createMigratedDatabase(adminUrl: string, name: string, migrations: string): Promise<TestDatabase> {
  await ensureDatabase(adminUrl, name);
  const url = databaseUrl(adminUrl, name);
  await migrate(url, migrations);
  return { name, url, drop: () => dropDatabase(adminUrl, name) };
}
