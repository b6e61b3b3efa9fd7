import type { ConsumedEvent } from "./idempotent-consumer";
import type { SqlClient } from "./sql";

/**
 * The dead-letter table of a consuming service (`parked_event`, declared by each service's schema
 * like processed_event): an event its handler could not apply after the consumer's maximum
 * attempts, and every later event of the same key, which waits behind it so that the key's events
 * are never applied out of order. A row is unresolved until an operator replays or discards it.
 */
export const PARKED_BEHIND = "waiting behind an earlier parked event of the same key";

const WAITING_KEYS = `SELECT DISTINCT key FROM parked_event WHERE consumer_group = $1 AND key = ANY($2::text[]) AND resolved_at IS NULL`;

/**
 * Serialises, per key, the consumer parking an event behind and a replay resolving the key's last
 * parked event: whichever comes second sees what the first committed (a transaction-scoped lock).
 */
const LOCK_KEY = `SELECT pg_advisory_xact_lock(hashtextextended($1::text || '|' || $2::text, 31))::text AS locked`;

const PARK = `INSERT INTO parked_event (consumer_group, event_id, topic, partition, "offset", key, type, payload, error, attempts, parked_at)
  VALUES ($1, $2::uuid, $3, $4, $5::bigint, $6, $7, $8, $9, $10, $11)
  ON CONFLICT (consumer_group, event_id) DO NOTHING`;

/** Keys among `keys` with an unresolved parked event of the group: their events must wait. */
async function waitingKeys(tx: SqlClient, group: string, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await tx.$queryRawUnsafe<{ key: string }[]>(WAITING_KEYS, group, [...new Set(keys)]);
  return new Set(rows.map((row) => row.key));
}

/** Takes the key's lock, then tells whether the key still waits (a replay may have just resolved it). */
export async function lockAndCheckWaiting(tx: SqlClient, group: string, key: string): Promise<boolean> {
  await tx.$queryRawUnsafe(LOCK_KEY, group, key);
  return (await waitingKeys(tx, group, [key])).has(key);
}

export async function lockKey(tx: SqlClient, group: string, key: string): Promise<void> {
  await tx.$queryRawUnsafe(LOCK_KEY, group, key);
}

/** Parks `event` (a second copy of a parked event changes nothing). */
export async function park(tx: SqlClient, group: string, event: ConsumedEvent, error: string, attempts: number, at: Date): Promise<void> {
  await tx.$executeRawUnsafe(PARK, group, event.eventId, event.topic, event.partition, event.offset, event.key, event.type, Buffer.from(event.payload), error, attempts, at);
}

/** What an error says, bounded: the parked row keeps the cause for the operator. */
export function describeError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
