import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMigrationsDir, type MigrationsDir } from "./migration-fixtures";
import { createTestDatabase, type TestDatabase } from "./test-database";

const ROOT = path.resolve(import.meta.dirname, "../../..");
const TSX = path.join(ROOT, "node_modules", ".bin", "tsx");
const CLI = path.join(ROOT, "packages", "db", "src", "migrate-cli.ts");

async function runCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(TSX, [CLI, ...args], { cwd: ROOT });
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
    expect(await runCli(db.url, dir.path)).toEqual({
      code: 0,
      stdout: "Applying 20260101000000_init\nApplied 1 migration(s).\n",
      stderr: "",
    });
    expect(await runCli(db.url, dir.path)).toEqual({ code: 0, stdout: "No pending migrations.\n", stderr: "" });
  });

  it("exits 1 with the reason, naming the migration at fault", async () => {
    await dir.write("20260102000000_broken", "CREATE TABLE;\n");

    const result = await runCli(db.url, dir.path);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Migration 20260102000000_broken failed and was rolled back: syntax error/);
  });

  it("exits 2 with usage when arguments are missing", async () => {
    expect(await runCli(db.url)).toMatchObject({ code: 2, stderr: expect.stringContaining("usage:") });
  });
});
