/**
 * The retention job on a real PostgreSQL with a fake clock: it deletes exactly the rows past their
 * period (nothing younger, nothing the policy excludes), in batches of the configured size, while
 * writers keep inserting; two replicas never both delete; the metrics report what it did.
 */
import { randomBytes } from "node:crypto";
import { databaseUrl, dropDatabase, ensureDatabase } from "@tawsil/db";
import { createLogger } from "@tawsil/logging";
import pg from "pg";
import { Registry } from "prom-client";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { expiresByColumn, RETENTION_LOCK_KEY, RetentionJob, type RetentionPolicy } from "../src/index";

const adminUrl = inject("databaseAdminUrl");
const logger = createLogger({ service: "retention-test", level: "silent" });
const name = `tawsil_test_retention_${randomBytes(4).toString("hex")}`;
const url = databaseUrl(adminUrl, name);
const DAY = 86_400_000;
/** The fake clock: every age below is relative to it, never to the machine's time. */
const NOW = new Date("2031-03-01T12:00:00.000Z");
const clock = () => NOW;

/** An outbox-like table: rows expire 7 days after sent_at; unsent rows (sent_at null) are never touched. */
const policy: RetentionPolicy = expiresByColumn({ table: "item", column: "sent_at", periodMs: 7 * DAY, where: "sent_at IS NOT NULL" });

let db: pg.Client;

beforeAll(async () => {
  await ensureDatabase(adminUrl, name);
  db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query(`CREATE TABLE item (id BIGSERIAL PRIMARY KEY, label TEXT NOT NULL, sent_at TIMESTAMPTZ(3))`);
  await db.query(`CREATE INDEX item_sent_at_idx ON item (sent_at)`);
});
afterAll(async () => {
  await db?.end();
  await dropDatabase(adminUrl, name);
});
beforeEach(async () => {
  await db.query("TRUNCATE item");
});

/** `count` rows labelled `label`, sent `ageMs` before the fake now (null: never sent). */
async function insert(label: string, count: number, ageMs: number | null): Promise<void> {
  await db.query(`INSERT INTO item (label, sent_at) SELECT $1, $2::timestamptz FROM generate_series(1, $3)`, [label, ageMs === null ? null : new Date(NOW.getTime() - ageMs), count]);
}

async function counts(): Promise<Record<string, number>> {
  const { rows } = await db.query<{ label: string; n: number }>(`SELECT label, count(*)::int AS n FROM item GROUP BY label ORDER BY label`);
  return Object.fromEntries(rows.map((r) => [r.label, r.n]));
}

const job = (opts: { batchSize: number; registry?: Registry }) => new RetentionJob({ databaseUrl: url, policies: [policy], clock, logger, ...opts });

async function metric(registry: Registry, metricName: string): Promise<number | undefined> {
  const found = (await registry.getSingleMetric(metricName)?.get())?.values.find((v) => v.labels.table === "item");
  return found?.value;
}

describe("the retention job", () => {
  it("deletes exactly what is past its period, in batches of its size, while rows keep being created", async () => {
    await insert("expired", 2500, 7 * DAY + 1000);
    await insert("at-the-cutoff", 3, 7 * DAY);
    await insert("younger", 40, 7 * DAY - 1000);
    await insert("unsent", 30, null);
    // Writers insert new rows all along the run (each its own statement, as services do).
    let writing = true;
    let created = 0;
    const writer = (async () => {
      const conn = new pg.Client({ connectionString: url });
      await conn.connect();
      while (writing) {
        await conn.query(`INSERT INTO item (label, sent_at) VALUES ('created', $1), ('created', NULL)`, [NOW]);
        created += 2;
      }
      await conn.end();
    })();
    const registry = new Registry();
    const started = performance.now();
    const run = await job({ batchSize: 1000, registry }).run();
    const ms = performance.now() - started;
    writing = false;
    await writer;

    // 1000 + 1000 + 500: the third batch deletes fewer than its size, so no fourth statement runs.
    expect(run).toEqual({ deleted: true, tables: [{ table: "item", deleted: 2500, batches: 3, oldestAgeSeconds: (7 * DAY) / 1000 }] });
    expect(created).toBeGreaterThan(0);
    expect(await counts()).toEqual({ "at-the-cutoff": 3, created, younger: 40, unsent: 30 });
    expect(await metric(registry, "retention_deleted_rows_total")).toBe(2500);
    expect(await metric(registry, "retention_oldest_row_age_seconds")).toBe((7 * DAY) / 1000);
    expect(await metric(registry, "retention_period_seconds")).toBe((7 * DAY) / 1000);
    console.log(`retention: 2500 rows in 3 batches in ${ms.toFixed(0)} ms (${Math.round(2500 / (ms / 1000))} rows/s) beside ${created} concurrent inserts`);
  });

  it("stops after one statement when nothing has expired, and reports an empty table's age as 0", async () => {
    await insert("younger", 5, DAY);
    const registry = new Registry();
    const replica = job({ batchSize: 100, registry });
    expect(await replica.run()).toEqual({ deleted: true, tables: [{ table: "item", deleted: 0, batches: 1, oldestAgeSeconds: DAY / 1000 }] });
    await db.query("TRUNCATE item");
    expect((await replica.run()).tables[0]?.oldestAgeSeconds).toBe(0);
    expect(await metric(registry, "retention_oldest_row_age_seconds")).toBe(0);
    expect(await metric(registry, "retention_deleted_rows_total")).toBe(0);
  });

  it("deletes nothing while another replica holds the lock, and measures all the same", async () => {
    await insert("expired", 50, 8 * DAY);
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query("SELECT pg_advisory_lock($1)", [RETENTION_LOCK_KEY]);
    const registry = new Registry();
    try {
      expect(await job({ batchSize: 10, registry }).run()).toEqual({ deleted: false, tables: [{ table: "item", deleted: 0, batches: 0, oldestAgeSeconds: (8 * DAY) / 1000 }] });
      expect(await counts()).toEqual({ expired: 50 });
      expect(await metric(registry, "retention_oldest_row_age_seconds")).toBe((8 * DAY) / 1000);
    } finally {
      await holder.end();
    }
    expect((await job({ batchSize: 10 }).run()).tables[0]?.deleted).toBe(50);
  });

  it("lets only one of two replicas running at once delete", async () => {
    await insert("expired", 4000, 8 * DAY);
    const registries = [new Registry(), new Registry()];
    const runs = await Promise.all(registries.map((registry) => job({ batchSize: 100, registry }).run()));
    const deleting = runs.filter((run) => run.tables[0]!.deleted > 0);
    expect(deleting).toHaveLength(1);
    expect(deleting[0]!.tables[0]!.deleted).toBe(4000);
    expect(await counts()).toEqual({});
    const deletedBy = await Promise.all(registries.map((registry) => metric(registry, "retention_deleted_rows_total")));
    expect(deletedBy.sort()).toEqual([0, 4000]);
  });
});
