/**
 * What the design floor's processes share: their settings, the topic the create's one event goes
 * to, the consumer groups that apply it (one for each service that consumes a created shipment:
 * dispatch, tracking, webhook), the tables (created by whichever process starts first) and the
 * transaction both sides write in.
 */
import { Kafka, logLevel } from "kafkajs";
import type pg from "pg";

/** A setting from the environment; a process refuses to start without it. */
export function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/** The broker KAFKA_BROKERS names, kafkajs's logging off. */
export const floorKafka = (): Kafka => new Kafka({ clientId: "bench-floor", brokers: env("KAFKA_BROKERS").split(","), logLevel: logLevel.NOTHING });

/** Runs `work` in one transaction on a connection of `pool`. */
export async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await work(client);
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK");
    throw err;
  } finally {
    client.release();
  }
}

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
