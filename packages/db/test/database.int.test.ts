import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { databaseUrl, dropDatabase, ensureDatabase } from "../src/index";
import { ADMIN_URL } from "./test-database";

const created: string[] = [];
const uniqueName = () => {
  const name = `tawsil_test_database_${randomBytes(4).toString("hex")}`;
  created.push(name);
  return name;
};

async function databaseExists(name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return (await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount === 1;
  } finally {
    await client.end();
  }
}

afterEach(async () => {
  await Promise.all(created.splice(0).map((name) => dropDatabase(ADMIN_URL, name)));
});

describe("databaseUrl", () => {
  it("replaces only the database name", () => {
    expect(databaseUrl("postgres://app:s3cret@db.internal:6432/postgres?sslmode=require", "tawsil_shipment")).toBe(
      "postgres://app:s3cret@db.internal:6432/tawsil_shipment?sslmode=require",
    );
    expect(databaseUrl("postgresql://postgres@127.0.0.1/", "a b")).toBe("postgresql://postgres@127.0.0.1/a%20b");
  });
});

describe("ensureDatabase", () => {
  it("creates a missing database once and reports later calls as no-ops", async () => {
    const name = uniqueName();

    expect(await ensureDatabase(ADMIN_URL, name)).toBe(true);
    expect(await ensureDatabase(ADMIN_URL, name)).toBe(false);
    expect(await databaseExists(name)).toBe(true);
  });

  it("lets exactly one of several racing callers create it, without errors for the others", async () => {
    const name = uniqueName();

    const results = await Promise.all(Array.from({ length: 6 }, () => ensureDatabase(ADMIN_URL, name)));

    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await databaseExists(name)).toBe(true);
  });
});

describe("dropDatabase", () => {
  it("drops a database that still has open connections", async () => {
    const name = uniqueName();
    await ensureDatabase(ADMIN_URL, name);
    const straggler = new pg.Client({ connectionString: databaseUrl(ADMIN_URL, name) });
    straggler.on("error", () => undefined);
    await straggler.connect();

    await dropDatabase(ADMIN_URL, name);

    expect(await databaseExists(name)).toBe(false);
    await straggler.end().catch(() => undefined);
  });

  it("does nothing when the database does not exist", async () => {
    await expect(dropDatabase(ADMIN_URL, uniqueName())).resolves.toBeUndefined();
  });
});
