import { randomUUID } from "node:crypto";
import { context, propagation } from "@opentelemetry/api";
import type { SqlClient } from "./sql";

export interface OutboxMessage {
  /** Kafka topic, `<owner>.<aggregate>.events.v1`. */
  readonly topic: string;
  /** The aggregate id: Kafka keeps one aggregate's events in order on one partition. */
  readonly key: string;
  /** Fully-qualified protobuf message name of the payload, e.g. `tawsil.shipment.v1.ShipmentCreated`. */
  readonly type: string;
  readonly payload: Uint8Array;
  /** Stable id of the fact; consumers deduplicate on it. New when omitted. */
  readonly eventId?: string;
}

/** The channel a relay LISTENs on; a NOTIFY reaches it when the writing transaction commits. */
export const OUTBOX_CHANNEL = "outbox_event";

// The insert and the notification in one round trip (NOTIFY itself waits for the commit).
const INSERT = `WITH written AS (
    INSERT INTO outbox_event (event_id, topic, key, type, payload, headers) VALUES ($1::uuid, $2, $3, $4, $5, $6::jsonb) RETURNING 1
  ) SELECT pg_notify('${OUTBOX_CHANNEL}', '')::text AS notified FROM written`;

/**
 * Records an event in the caller's transaction, next to the business change it describes: both
 * commit or neither does, and the relay publishes it afterwards. The current W3C trace context is
 * stored with it so the consumer's work joins the producer's trace.
 *
 * Events of one key reach the broker in the order they were written (`seq`) when the writes of one
 * key commit one after another, as they do under the aggregate's row lock.
 */
export async function writeOutbox(tx: SqlClient, message: OutboxMessage): Promise<string> {
  const row = outboxRowOf(message);
  await tx.$queryRawUnsafe(INSERT, row.eventId, row.topic, row.key, row.type, row.payload, row.headers);
  return row.eventId;
}

/** An outbox row ready to insert, for a caller that writes it as part of a larger statement. */
export interface OutboxRow {
  readonly eventId: string;
  readonly topic: string;
  readonly key: string;
  readonly type: string;
  readonly payload: Uint8Array;
  /** JSON of the W3C trace context headers, for the `headers` jsonb column. */
  readonly headers: string;
}

/** The row writeOutbox would insert: a new event id unless given, and the current trace context. */
export function outboxRowOf(message: OutboxMessage): OutboxRow {
  const headers: Record<string, string> = {};
  propagation.inject(context.active(), headers);
  return { eventId: message.eventId ?? randomUUID(), topic: message.topic, key: message.key, type: message.type, payload: message.payload, headers: JSON.stringify(headers) };
}
