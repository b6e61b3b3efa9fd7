import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMigrationsDir, type MigrationsDir } from "./migration-fixtures";
import { createTestDatabase, type TestDatabase } from "./test-database";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");
const CLI = path.join(ROOT, "packages", "db", "src", "migrate-cli.ts");

/** Runs the CLI with only the given urls in its environment, as a pod would. */
async function runCli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, [CLI, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let db: TestDatabase;
let dir: MigrationsDir;

beforeAll(async () => {
  db = await createTestDatabase("migrate_cli");
  dir = await createMigrationsDir({ "20260101000000_init": 'CREATE TABLE "t" ("id" INTEGER);\n' });
});

afterAll(async () => {
  await dir.remove();
  await db.drop();
});

describe("migrate-cli", () => {
  it("applies pending migrations, then reports the database current", async () => {
    // Before the Job: the initContainer's read-only wait gives up (here at once) naming what is pending.
    expect(await runCli({ DATABASE_URL: db.url, MIGRATE_WAIT_SECONDS: "0" }, "--wait", dir.path)).toEqual({
      code: 1,
      stdout: "",
      stderr: "Still pending after 0 s: 20260101000000_init\n",
    });
    expect(await runCli({ MIGRATION_DATABASE_URL: db.url }, dir.path)).toEqual({
      code: 0,
      stdout: "Applying 20260101000000_init\nApplied 1 migration(s).\n",
      stderr: "",
    });
    expect(await runCli({ MIGRATION_DATABASE_URL: db.url }, dir.path)).toEqual({ code: 0, stdout: "No pending migrations.\n", stderr: "" });
    expect(await runCli({ DATABASE_URL: db.url, MIGRATE_WAIT_SECONDS: "0" }, "--wait", dir.path)).toEqual({ code: 0, stdout: "Schema is current.\n", stderr: "" });
  });

  it("exits 1 with the reason, naming the migration at fault", async () => {
    await dir.write("20260102000000_broken", "CREATE TABLE;\n");

    const result = await runCli({ MIGRATION_DATABASE_URL: db.url }, dir.path);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Migration 20260102000000_broken failed and was rolled back: syntax error/);
  });

  it("exits 2 with usage when arguments are missing", async () => {
    expect(await runCli({ MIGRATION_DATABASE_URL: db.url })).toMatchObject({ code: 2, stderr: expect.stringContaining("usage:") });
  });

  it("takes its url from the environment only: a url on the command line is refused", async () => {
    expect(await runCli({}, db.url, dir.path)).toMatchObject({ code: 2, stderr: expect.stringContaining("usage:") });
    // The migrating mode never falls back to the runtime role's DATABASE_URL.
    expect(await runCli({ DATABASE_URL: db.url }, dir.path)).toMatchObject({ code: 2, stderr: expect.stringContaining("usage:") });
  });
});
