import type { Position } from "../domain/cursor";
import type { ShipmentState } from "../domain/lifecycle";
import type { PaymentMethod, Shipment } from "../domain/shipment";
import { Prisma } from "./prisma/generated/client";

/**
 * The shipment reads (by id, locked, by tracking code, a page of the list, the approval queue) as
 * typed raw SQL, the hot ones first of all: Prisma's findUnique and
 * findMany with a relation join cost 2-4x the database statement itself in client CPU (issue 9,
 * `make bench`'s Prisma phase), and these statements are all a read does. The statement is what
 * the relation join ran: the shipment row and its items in one round trip, items in position
 * order. Decimals leave PostgreSQL as text (numeric's text keeps the column's scale, which is the
 * canonical form `shipmentFromRow` builds with toFixed; trim_scale gives what Decimal#toString
 * gave for dimensions), so no Decimal is built per read.
 */
const COLUMNS = Prisma.sql`s.id::text AS id, s.shipment_number AS "shipmentNumber", s.merchant_id::text AS "merchantId",
  s.external_reference AS "externalReference", s.state::text AS state, s.version AS version,
  s.recipient_name AS "recipientName", s.recipient_phone AS "recipientPhone",
  s.alternate_contact_name AS "alternateContactName", s.alternate_contact_phone AS "alternateContactPhone",
  s.total_weight_kilograms::text AS "totalWeightKilograms", s.declared_value::text AS "declaredValue",
  s.cod_amount::text AS "codAmount", s.currency AS currency, s.payment_method::text AS "paymentMethod",
  s.pickup_window_start AS "pickupWindowStart", s.pickup_window_end AS "pickupWindowEnd",
  s.created_at AS "createdAt", s.approved_at AS "approvedAt",
  s.pickup_latitude_micro AS "pickupLatitudeMicro", s.pickup_longitude_micro AS "pickupLongitudeMicro",
  s.pickup_address_line AS "pickupAddressLine", s.pickup_city_code AS "pickupCityCode",
  s.destination_latitude_micro AS "destLatitudeMicro", s.destination_longitude_micro AS "destLongitudeMicro",
  s.destination_address_line AS "destAddressLine", s.destination_city_code AS "destCityCode",
  s.requirements AS requirements, s.branch_code AS "branchCode", s.reason_code AS "reasonCode",
  s.rate_card_id::text AS "rateCardId", s.rate_card_version AS "rateCardVersion", s.service_level AS "serviceLevel",
  s.price::text AS price, s.distance_metres AS "distanceMetres", s.delivery_pin AS "deliveryPin",
  (SELECT COALESCE(json_agg(json_build_array(i.description, i.quantity, i.weight_kilograms::text,
      trim_scale(i.length_centimetres)::text, trim_scale(i.width_centimetres)::text, trim_scale(i.height_centimetres)::text)
    ORDER BY i.position), '[]')::text
   FROM shipment_item i WHERE i.shipment_id = s.id) AS items,
  (SELECT COALESCE(json_agg(json_build_array(m.id::text, m.purpose, m.sort_order) ORDER BY m.sort_order), '[]')::text
   FROM media_asset m WHERE m.shipment_id = s.id) AS "timelineMedia"`;

/** One row of the statements above, as Prisma's $queryRaw deserialises it. */
export interface ShipmentSelectRow {
  readonly id: string;
  readonly shipmentNumber: string;
  readonly merchantId: string;
  readonly externalReference: string;
  readonly state: string;
  readonly version: bigint;
  readonly recipientName: string;
  readonly recipientPhone: string;
  readonly alternateContactName: string | null;
  readonly alternateContactPhone: string | null;
  readonly totalWeightKilograms: string;
  readonly declaredValue: string;
  readonly codAmount: string;
  readonly currency: string;
  readonly paymentMethod: string;
  readonly pickupWindowStart: Date | null;
  readonly pickupWindowEnd: Date | null;
  readonly createdAt: Date;
  readonly approvedAt: Date | null;
  readonly pickupLatitudeMicro: number;
  readonly pickupLongitudeMicro: number;
  readonly pickupAddressLine: string;
  readonly pickupCityCode: string;
  readonly destLatitudeMicro: number;
  readonly destLongitudeMicro: number;
  readonly destAddressLine: string;
  readonly destCityCode: string;
  readonly requirements: string[];
  readonly branchCode: string | null;
  readonly reasonCode: string | null;
  readonly rateCardId: string;
  readonly rateCardVersion: number;
  readonly serviceLevel: string;
  readonly price: string;
  readonly distanceMetres: number;
  readonly deliveryPin: string | null;
  /** JSON text: [[description, quantity, weight, length, width, height], ...] in position order. */
  readonly items: string;
  /** JSON text: [[mediaAssetId, purpose, sortOrder], ...] in sortOrder. */
  readonly timelineMedia: string;
}

type ItemTuple = [string, number, string, string | null, string | null, string | null];

/** One shipment and its items by id. */
export function selectShipmentById(id: string): Prisma.Sql {
  return Prisma.sql`SELECT ${COLUMNS} FROM shipment s WHERE s.id = ${id}::uuid`;
}

/** The same, with the shipment row locked FOR UPDATE (inside a transaction): lock and read in one round trip. */
export function selectShipmentForUpdate(id: string): Prisma.Sql {
  return Prisma.sql`SELECT ${COLUMNS} FROM shipment s WHERE s.id = ${id}::uuid FOR UPDATE OF s`;
}

/** The shipment a public tracking link names, by the SHA-256 of its code (a unique column). */
export function selectShipmentByTrackingCodeSha256(hash: Uint8Array): Prisma.Sql {
  return Prisma.sql`SELECT ${COLUMNS} FROM shipment s WHERE s.tracking_code_sha256 = ${Buffer.from(hash)}::bytea`;
}

/** The operators' queue: shipments held for approval, oldest first, of one merchant or of all. */
export function selectPendingApproval(merchantId: string | null, limit: number): Prisma.Sql {
  const merchant = merchantId === null ? Prisma.empty : Prisma.sql` AND s.merchant_id = ${merchantId}::uuid`;
  return Prisma.sql`SELECT ${COLUMNS} FROM shipment s
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
  return Prisma.sql`SELECT ${COLUMNS} FROM shipment s
WHERE s.merchant_id = ${query.merchantId}::uuid${state}${reference}${position}
ORDER BY s.created_at DESC, s.id DESC LIMIT ${limit}::int`;
}

export function shipmentFromSelectRow(row: ShipmentSelectRow): Shipment {
  const items = JSON.parse(row.items) as ItemTuple[];
  return {
    id: row.id,
    shipmentNumber: row.shipmentNumber,
    merchantId: row.merchantId,
    externalReference: row.externalReference,
    state: row.state as ShipmentState,
    version: row.version,
    recipientName: row.recipientName,
    recipientPhone: row.recipientPhone,
    alternateContactName: row.alternateContactName,
    alternateContactPhone: row.alternateContactPhone,
    totalWeightKilograms: row.totalWeightKilograms,
    declaredValue: row.declaredValue,
    codAmount: row.codAmount,
    currency: row.currency,
    paymentMethod: row.paymentMethod as PaymentMethod,
    pickupWindow: row.pickupWindowStart && row.pickupWindowEnd ? { start: row.pickupWindowStart, end: row.pickupWindowEnd } : null,
    createdAt: row.createdAt,
    approvedAt: row.approvedAt,
    pickup: {
      coordinate: { latitudeMicro: row.pickupLatitudeMicro, longitudeMicro: row.pickupLongitudeMicro },
      addressLine: row.pickupAddressLine,
      cityCode: row.pickupCityCode,
    },
    destination: {
      coordinate: { latitudeMicro: row.destLatitudeMicro, longitudeMicro: row.destLongitudeMicro },
      addressLine: row.destAddressLine,
      cityCode: row.destCityCode,
    },
    items: items.map(([description, quantity, weightKilograms, lengthCentimetres, widthCentimetres, heightCentimetres]) => ({
      description,
      quantity,
      weightKilograms,
      lengthCentimetres,
      widthCentimetres,
      heightCentimetres,
    })),
    requirements: row.requirements,
    branchCode: row.branchCode,
    reasonCode: row.reasonCode,
    deliveryPin: row.deliveryPin,
    timelineMedia: (JSON.parse(row.timelineMedia) as [string, string, number][]).map(([mediaAssetId, purpose, sortOrder]) => ({ mediaAssetId, purpose, sortOrder })),
    terms: {
      rateCardId: row.rateCardId,
      rateCardVersion: row.rateCardVersion,
      serviceLevel: row.serviceLevel,
      price: row.price,
      distanceMetres: row.distanceMetres,
    },
  };
}
