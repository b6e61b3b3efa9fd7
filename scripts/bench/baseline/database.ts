/** The baseline's own database: created, given its schema, and seeded with one merchant's shipments. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { databaseUrl, ensureDatabase } from "../../../packages/db/src/index";

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Creates the database when missing and applies schema.sql (idempotent); returns its url. */
export async function prepareBaselineDatabase(adminUrl: string, name: string): Promise<string> {
  await ensureDatabase(adminUrl, name);
  const url = databaseUrl(adminUrl, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(readFileSync(path.join(HERE, "schema.sql"), "utf8"));
  } finally {
    await client.end();
  }
  return url;
}

/** `count` shipments of `merchantId`, one second apart, newest at `newest`; returns their ids. */
export async function seedBaselineShipments(url: string, merchantId: string, count: number, newest: Date): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const res = await client.query<{ id: string }>(readFileSync(path.join(HERE, "seed.sql"), "utf8"), [merchantId, count, newest]);
    return res.rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}
