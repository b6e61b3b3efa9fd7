import { OUTBOX_CHANNEL, outboxRowOf } from "@tawsil/events";
import { Prisma } from "./prisma/generated/client";
import type { NewShipment } from "../app/ports";
import type { TrackingLink } from "../domain/tracking-link";
import { SHIPMENT_CHANGED_TYPE, shipmentChangedPayload } from "./shipment-events";
import { ITEM_INSERT_COLUMNS, SHIPMENT_INSERT_COLUMNS, itemInsertValues, shipmentInsertValues } from "./shipment-row";
import { SHIPMENT_EVENTS_TOPIC } from "@tawsil/topology";

/**
 * The whole write of a create as ONE statement, run after the idempotency lock is held: it reads
 * the key's record and the reference, and only when neither exists inserts the shipment, its
 * items, its events and the record (data-modifying CTEs gated on `go`). One round trip instead of
 * a dozen; what it read comes back so the caller can answer a replay or DUPLICATE_REFERENCE.
 * An expired record still holding the key is overwritten in place (it no longer counts). The
 * outbox relay is notified as writeOutbox would (delivered at commit).
 * The assets the create names are attached by the same statement, with a conditional UPDATE (the
 * merchant's own, READY, of the named purpose, attached to nothing): of two creates racing for
 * one asset, the second waits on the first's row lock, then finds shipment_id set and attaches
 * nothing; the caller compares what was attached with what was named and rolls back on a miss.
 */
export function createStatement(input: NewShipment, link: TrackingLink): Prisma.Sql {
  const { scope, shipment: s, record, now } = input;
  const items = s.items.map((item, position) => itemInsertValues(s.id, item, position));
  const events = input.events.map(({ change, at }) => {
    const row = outboxRowOf({ topic: SHIPMENT_EVENTS_TOPIC, key: s.id, type: SHIPMENT_CHANGED_TYPE, payload: shipmentChangedPayload(change, at, link) });
    return Prisma.sql`(${row.eventId}::uuid, ${row.topic}, ${row.key}, ${row.type}, ${Buffer.from(row.payload)}::bytea, ${row.headers}::jsonb)`;
  });
  const media = s.timelineMedia.map((m) => Prisma.sql`(${m.mediaAssetId}::uuid, ${m.purpose}, ${m.sortOrder}::int)`);
  const attached =
    media.length === 0
      ? Prisma.empty
      : Prisma.sql`, attached AS (
  UPDATE media_asset m SET shipment_id = inserted.id, sort_order = v.sort_order
  FROM inserted, (VALUES ${Prisma.join(media)}) AS v(id, purpose, sort_order)
  WHERE m.id = v.id AND m.purpose = v.purpose AND m.merchant_id = ${s.merchantId}::uuid AND m.status = 'READY' AND m.shipment_id IS NULL
  RETURNING m.id
)`;
  const attachedIds = media.length === 0 ? Prisma.sql`ARRAY[]::text[]` : Prisma.sql`ARRAY(SELECT id::text FROM attached)`;
  return Prisma.sql`
WITH existing AS (
  SELECT fingerprint, snapshot, error_reason FROM idempotency_record
  WHERE operation = ${scope.operation} AND merchant_id = ${scope.merchantId}::uuid AND client_id = ${scope.clientId} AND key = ${scope.key}
    AND expires_at > ${now}::timestamptz
), taken AS (
  SELECT 1 FROM shipment WHERE merchant_id = ${s.merchantId}::uuid AND external_reference = ${s.externalReference}
), go AS (
  SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM existing) AND NOT EXISTS (SELECT 1 FROM taken)
), inserted AS (
  INSERT INTO shipment (${SHIPMENT_INSERT_COLUMNS})
  SELECT ${shipmentInsertValues(s, link.codeSha256)} FROM go
  RETURNING id
), inserted_items AS (
  INSERT INTO shipment_item (${ITEM_INSERT_COLUMNS})
  SELECT v.* FROM inserted, (VALUES ${Prisma.join(items)}) AS v
), inserted_events AS (
  INSERT INTO outbox_event (event_id, topic, key, type, payload, headers)
  SELECT v.* FROM inserted, (VALUES ${Prisma.join(events)}) AS v
), kept AS (
  INSERT INTO idempotency_record (operation, merchant_id, client_id, key, fingerprint, shipment_id, snapshot, error_reason, created_at, expires_at)
  SELECT ${scope.operation}, ${scope.merchantId}::uuid, ${scope.clientId}, ${scope.key}, ${record.fingerprint},
    inserted.id, ${Buffer.from(record.snapshot)}::bytea, NULL, ${now}::timestamptz, ${record.expiresAt}::timestamptz
  FROM inserted
  ON CONFLICT (operation, merchant_id, client_id, key) DO UPDATE SET
    fingerprint = EXCLUDED.fingerprint, shipment_id = EXCLUDED.shipment_id, snapshot = EXCLUDED.snapshot,
    error_reason = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
  WHERE idempotency_record.expires_at <= ${now}::timestamptz
)${attached}
SELECT (SELECT count(*) FROM inserted)::int AS inserted,
  EXISTS (SELECT 1 FROM taken) AS "referenceTaken",
  (SELECT fingerprint FROM existing) AS fingerprint,
  (SELECT snapshot FROM existing) AS snapshot,
  (SELECT error_reason FROM existing) AS "errorReason",
  (SELECT pg_notify(${OUTBOX_CHANNEL}, '')::text FROM inserted) AS notified,
  ${attachedIds} AS "attachedIds"`;
}

/** What the statement read and did. */
export interface CreateStatementRow {
  readonly inserted: number;
  readonly referenceTaken: boolean;
  readonly fingerprint: string | null;
  readonly snapshot: Uint8Array | null;
  readonly errorReason: string | null;
  /** The named assets the statement attached (all of them, or the create must roll back). */
  readonly attachedIds: string[];
}
