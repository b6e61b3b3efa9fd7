import type { Position } from "../domain/cursor";
import type { ShipmentState } from "../domain/lifecycle";
import { Prisma } from "./prisma/generated/client";
import { SHIPMENT_SELECT_LIST } from "./shipment-row";

/**
 * The shipment reads (by id, locked, by tracking code, a page of the list, the approval queue) as
 * typed raw SQL: Prisma's findUnique and findMany with a relation join cost 2-4x the database
 * statement itself in client CPU (issue 9, `make bench`'s Prisma phase), and these statements are
 * all a read does. Each is one round trip: the shipment row with its items and attached media,
 * as shipment-row.ts lists and maps them (`shipmentFromRow`).
 */
/** One shipment by id. */
export function selectShipmentById(id: string): Prisma.Sql {
  return Prisma.sql`SELECT ${SHIPMENT_SELECT_LIST} FROM shipment s WHERE s.id = ${id}::uuid`;
}

/** The same, with the shipment row locked FOR UPDATE (inside a transaction): lock and read in one round trip. */
export function selectShipmentForUpdate(id: string): Prisma.Sql {
  return Prisma.sql`SELECT ${SHIPMENT_SELECT_LIST} FROM shipment s WHERE s.id = ${id}::uuid FOR UPDATE OF s`;
}

/** The shipment a public tracking link names, by the SHA-256 of its code (a unique column). */
export function selectShipmentByTrackingCodeSha256(hash: Uint8Array): Prisma.Sql {
  return Prisma.sql`SELECT ${SHIPMENT_SELECT_LIST} FROM shipment s WHERE s.tracking_code_sha256 = ${Buffer.from(hash)}::bytea`;
}

/** The operators' queue: shipments held for approval, oldest first, of one merchant or of all. */
export function selectPendingApproval(merchantId: string | null, limit: number): Prisma.Sql {
  const merchant = merchantId === null ? Prisma.empty : Prisma.sql` AND s.merchant_id = ${merchantId}::uuid`;
  return Prisma.sql`SELECT ${SHIPMENT_SELECT_LIST} FROM shipment s
WHERE s.state = 'PENDING_APPROVAL'::shipment_state${merchant}
ORDER BY s.created_at ASC, s.id ASC LIMIT ${limit}::int`;
}

/**
 * A page of a merchant's shipments, newest first, after a keyset position. Same predicate as the
 * findMany it replaces: `created_at <= c AND (created_at < c OR id < i)`, so the range scan on
 * (merchant_id, [state,] created_at DESC, id DESC) starts at the position.
 */
export function selectShipmentPage(
  query: { merchantId: string; state: ShipmentState | null; externalReference: string | null },
  after: Position | null,
  limit: number,
): Prisma.Sql {
  const state = query.state === null ? Prisma.empty : Prisma.sql` AND s.state = ${query.state}::shipment_state`;
  const reference = query.externalReference === null ? Prisma.empty : Prisma.sql` AND s.external_reference = ${query.externalReference}`;
  const position =
    after === null
      ? Prisma.empty
      : Prisma.sql` AND s.created_at <= ${after.createdAt}::timestamptz AND (s.created_at < ${after.createdAt}::timestamptz OR s.id < ${after.id}::uuid)`;
  return Prisma.sql`SELECT ${SHIPMENT_SELECT_LIST} FROM shipment s
WHERE s.merchant_id = ${query.merchantId}::uuid${state}${reference}${position}
ORDER BY s.created_at DESC, s.id DESC LIMIT ${limit}::int`;
}
