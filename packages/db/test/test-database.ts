import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { databaseUrl, dropDatabase, ensureDatabase } from "../src/index";

/**
 * The server the suite's global setup provides; when a file runs without it, DATABASE_ADMIN_URL
 * or the local server (the same fallbacks as packages/testing/src/infra/postgres.ts).
 */
export const ADMIN_URL =
  inject("databaseAdminUrl") ?? process.env.DATABASE_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A new, uniquely named database; tests drop it in afterEach/afterAll. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `tawsil_test_${label}_${randomBytes(4).toString("hex")}`;
  await ensureDatabase(ADMIN_URL, name);
  return { name, url: databaseUrl(ADMIN_URL, name), drop: () => dropDatabase(ADMIN_URL, name) };
}
