/**
 * What the design floor's create shares between its processes: the topic its one event goes to,
 * the consumer groups that apply it (one for each service that consumes a created shipment:
 * dispatch, tracking, webhook) and the tables, created by whichever process starts first.
 */
import type pg from "pg";

export const FLOOR_TOPIC = "bench.floor.shipment-events";
export const FLOOR_PARTITIONS = 3;
export const FLOOR_GROUPS = ["floor-dispatch", "floor-tracking", "floor-webhook"] as const;

export const FLOOR_SCHEMA = `
CREATE TABLE IF NOT EXISTS floor_shipment (id UUID PRIMARY KEY, merchant_id UUID NOT NULL, reference TEXT NOT NULL, draft BYTEA NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS floor_outbox (id UUID PRIMARY KEY, body BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS floor_applied (group_name TEXT NOT NULL, event_id UUID NOT NULL, body BYTEA NOT NULL, PRIMARY KEY (group_name, event_id));`;

/** Several processes may create the tables at once: one at a time, under an advisory lock. */
export async function ensureFloorSchema(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock(20261128)");
    await client.query(FLOOR_SCHEMA);
    await client.query("SELECT pg_advisory_unlock(20261128)");
  } finally {
    client.release();
  }
}
