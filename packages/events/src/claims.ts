import type { SqlClient } from "./sql";

/**
 * The claims that make a consumer idempotent: an event's id recorded in `processed_event` in the
 * transaction that applies it, so a redelivery finds it and changes nothing. With dead letters on,
 * an event whose key waits behind a parked event must not be claimed; the look at `parked_event`
 * and the claim are then one statement (a claim conditioned on nothing waiting), not a SELECT
 * followed by an INSERT: every event a consumer applies took both round trips before.
 */
const CLAIM_EVENT = `INSERT INTO processed_event (consumer_group, event_id) VALUES ($1, $2::uuid) ON CONFLICT DO NOTHING`;

const CLAIM_EVENT_UNLESS_WAITING = `WITH waiting AS (
    SELECT 1 FROM parked_event WHERE consumer_group = $1 AND key = $3 AND resolved_at IS NULL LIMIT 1
  ), claimed AS (
    INSERT INTO processed_event (consumer_group, event_id) SELECT $1, $2::uuid WHERE NOT EXISTS (SELECT 1 FROM waiting)
    ON CONFLICT DO NOTHING RETURNING 1
  )
  SELECT EXISTS (SELECT 1 FROM waiting) AS waits, EXISTS (SELECT 1 FROM claimed) AS claimed`;

/** Claims a batch's event ids in one statement; returns those not applied before. */
const CLAIM_EVENTS = `INSERT INTO processed_event (consumer_group, event_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING RETURNING event_id::text AS event_id`;

/** As CLAIM_EVENTS, claiming nothing when any of the keys waits; a waiting key answers one row whose event_id is null. */
const CLAIM_EVENTS_UNLESS_WAITING = `WITH waiting AS (
    SELECT 1 FROM parked_event WHERE consumer_group = $1 AND key = ANY($3::text[]) AND resolved_at IS NULL LIMIT 1
  ), claimed AS (
    INSERT INTO processed_event (consumer_group, event_id) SELECT $1, id FROM unnest($2::uuid[]) AS id WHERE NOT EXISTS (SELECT 1 FROM waiting)
    ON CONFLICT DO NOTHING RETURNING event_id::text AS event_id
  )
  SELECT event_id FROM claimed UNION ALL SELECT NULL FROM waiting`;

export type ClaimOutcome = "claimed" | "duplicate" | "waits";

/**
 * Claims one event for `group`: "duplicate" when it was applied before, "waits" (nothing claimed)
 * when `checkParked` and its key has an unresolved parked event.
 */
export async function claimEvent(tx: SqlClient, group: string, event: { eventId: string; key: string }, checkParked: boolean): Promise<ClaimOutcome> {
  if (!checkParked) return (await tx.$executeRawUnsafe(CLAIM_EVENT, group, event.eventId)) === 0 ? "duplicate" : "claimed";
  const [row] = await tx.$queryRawUnsafe<{ waits: boolean; claimed: boolean }[]>(CLAIM_EVENT_UNLESS_WAITING, group, event.eventId, event.key);
  if (row?.waits) return "waits";
  return row?.claimed ? "claimed" : "duplicate";
}

/**
 * Claims a batch's events for `group` in one statement: the ids not applied before, or "waits"
 * (nothing claimed) when `checkParked` and any of their keys has an unresolved parked event.
 */
export async function claimEvents(tx: SqlClient, group: string, events: readonly { eventId: string; key: string }[], checkParked: boolean): Promise<Set<string> | "waits"> {
  const ids = events.map((event) => event.eventId);
  if (!checkParked) return new Set((await tx.$queryRawUnsafe<{ event_id: string }[]>(CLAIM_EVENTS, group, ids)).map((row) => row.event_id));
  const keys = [...new Set(events.map((event) => event.key))];
  const rows = await tx.$queryRawUnsafe<{ event_id: string | null }[]>(CLAIM_EVENTS_UNLESS_WAITING, group, ids, keys);
  if (rows.some((row) => row.event_id === null)) return "waits";
  return new Set(rows.map((row) => row.event_id!));
}

/**
 * The writes of an event applied alone, as CTEs for claimedAlone: each reads `FROM go` (one row
 * when the event may be applied), the last is named `applied` and returns a row when the event
 * was applied. Their parameters are numbered from the `first` the consumer gave.
 */
export interface AloneWrites {
  readonly ctes: string;
  readonly values: readonly unknown[];
}

/** Where the consumer's parameters end: the writes' first is the next. */
export const firstWriteParameter = (checkParked: boolean): number => (checkParked ? 4 : 3);

/**
 * One statement that claims an event and applies its writes together, outside any transaction:
 * `go` holds a row only when the event was not applied before (and, with `checkParked`, its key
 * waits behind no parked event); the claim is made only when the writes say they applied it. The
 * answer is true when it was claimed; false when nothing was claimed (applied before, waiting, or
 * not applied by the writes), which the consumer's ordinary path then sorts out. Two copies of
 * the event applied at once (replicas during a rebalance) may both pass `go`; one claims, and the
 * writes must leave what applying them once does (AloneWrites' contract).
 */
export async function claimedAlone(sql: SqlClient, group: string, event: { eventId: string; key: string }, checkParked: boolean, writes: AloneWrites): Promise<boolean> {
  const parked = checkParked ? " AND NOT EXISTS (SELECT 1 FROM parked_event WHERE consumer_group = $1 AND key = $3 AND resolved_at IS NULL)" : "";
  const text = `WITH go AS (
    SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM processed_event WHERE consumer_group = $1 AND event_id = $2::uuid)${parked}
  ), ${writes.ctes}, claimed AS (
    INSERT INTO processed_event (consumer_group, event_id) SELECT $1, $2::uuid FROM applied LIMIT 1 ON CONFLICT DO NOTHING RETURNING 1
  )
  SELECT count(*)::int AS claimed FROM claimed`;
  const values = checkParked ? [group, event.eventId, event.key, ...writes.values] : [group, event.eventId, ...writes.values];
  const [row] = await sql.$queryRawUnsafe<{ claimed: number }[]>(text, ...values);
  return row?.claimed === 1;
}
