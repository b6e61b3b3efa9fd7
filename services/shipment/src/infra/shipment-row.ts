import type { TimelineEntry } from "../domain/media-asset";
import type { Item, Shipment } from "../domain/shipment";
import { Prisma } from "./prisma/generated/client";

/**
 * The shipment table's row, as every statement of this folder reads and writes it: ONE column
 * list (below), from which the SELECT list, the INSERT's column list and its values are built once
 * at load, ONE row type (what the columns' values are, derived from the list) and ONE mapping of
 * the row to the aggregate. A column added here is read and written everywhere at once.
 *
 * Values cross as the aggregate holds them: decimals as canonical strings (numeric's text keeps
 * the column's scale; `::text` on the way out), so no Decimal is built per read, and enums and
 * uuids as strings.
 */
type ColumnType = "text" | "text[]" | "int" | "bigint" | "numeric" | "uuid" | "timestamptz" | "shipment_state" | "payment_method";

interface Column {
  readonly name: string;
  readonly type: ColumnType;
  /** The column's value for a shipment; read back, the row holds the same value (types included). */
  readonly value: (shipment: Shipment) => unknown;
}

const SHIPMENT_COLUMNS = {
  id: { name: "id", type: "uuid", value: (s) => s.id },
  shipmentNumber: { name: "shipment_number", type: "text", value: (s) => s.shipmentNumber },
  merchantId: { name: "merchant_id", type: "uuid", value: (s) => s.merchantId },
  externalReference: { name: "external_reference", type: "text", value: (s) => s.externalReference },
  state: { name: "state", type: "shipment_state", value: (s) => s.state },
  version: { name: "version", type: "bigint", value: (s) => s.version },
  recipientName: { name: "recipient_name", type: "text", value: (s) => s.recipientName },
  recipientPhone: { name: "recipient_phone", type: "text", value: (s) => s.recipientPhone },
  alternateContactName: { name: "alternate_contact_name", type: "text", value: (s) => s.alternateContactName },
  alternateContactPhone: { name: "alternate_contact_phone", type: "text", value: (s) => s.alternateContactPhone },
  totalWeightKilograms: { name: "total_weight_kilograms", type: "numeric", value: (s) => s.totalWeightKilograms },
  declaredValue: { name: "declared_value", type: "numeric", value: (s) => s.declaredValue },
  codAmount: { name: "cod_amount", type: "numeric", value: (s) => s.codAmount },
  currency: { name: "currency", type: "text", value: (s) => s.currency },
  paymentMethod: { name: "payment_method", type: "payment_method", value: (s) => s.paymentMethod },
  pickupWindowStart: { name: "pickup_window_start", type: "timestamptz", value: (s) => s.pickupWindow?.start ?? null },
  pickupWindowEnd: { name: "pickup_window_end", type: "timestamptz", value: (s) => s.pickupWindow?.end ?? null },
  createdAt: { name: "created_at", type: "timestamptz", value: (s) => s.createdAt },
  approvedAt: { name: "approved_at", type: "timestamptz", value: (s) => s.approvedAt },
  pickupLatitudeMicro: { name: "pickup_latitude_micro", type: "int", value: (s) => s.pickup.coordinate.latitudeMicro },
  pickupLongitudeMicro: { name: "pickup_longitude_micro", type: "int", value: (s) => s.pickup.coordinate.longitudeMicro },
  pickupAddressLine: { name: "pickup_address_line", type: "text", value: (s) => s.pickup.addressLine },
  pickupCityCode: { name: "pickup_city_code", type: "text", value: (s) => s.pickup.cityCode },
  destLatitudeMicro: { name: "destination_latitude_micro", type: "int", value: (s) => s.destination.coordinate.latitudeMicro },
  destLongitudeMicro: { name: "destination_longitude_micro", type: "int", value: (s) => s.destination.coordinate.longitudeMicro },
  destAddressLine: { name: "destination_address_line", type: "text", value: (s) => s.destination.addressLine },
  destCityCode: { name: "destination_city_code", type: "text", value: (s) => s.destination.cityCode },
  requirements: { name: "requirements", type: "text[]", value: (s) => s.requirements },
  branchCode: { name: "branch_code", type: "text", value: (s) => s.branchCode },
  reasonCode: { name: "reason_code", type: "text", value: (s) => s.reasonCode },
  rateCardId: { name: "rate_card_id", type: "uuid", value: (s) => s.terms.rateCardId },
  rateCardVersion: { name: "rate_card_version", type: "int", value: (s) => s.terms.rateCardVersion },
  serviceLevel: { name: "service_level", type: "text", value: (s) => s.terms.serviceLevel },
  price: { name: "price", type: "numeric", value: (s) => s.terms.price },
  distanceMetres: { name: "distance_metres", type: "int", value: (s) => s.terms.distanceMetres },
  deliveryPin: { name: "delivery_pin", type: "text", value: (s) => s.deliveryPin },
} as const satisfies Record<string, Column>;

/**
 * An item's columns, in the order of the JSON array each item is read as (an array, not an object:
 * JSON.parse of arrays plus one destructuring is the cheaper read, 0.7-1.0 us against 1.2-1.4 us for three items, node 20).
 */
const ITEM_COLUMNS = [
  { field: "description", name: "description", type: "text" },
  { field: "quantity", name: "quantity", type: "int" },
  { field: "weightKilograms", name: "weight_kilograms", type: "numeric" },
  // Dimensions are kept as given: trim_scale drops the zeros the column's scale pads them with.
  { field: "lengthCentimetres", name: "length_centimetres", type: "numeric", trimmed: true },
  { field: "widthCentimetres", name: "width_centimetres", type: "numeric", trimmed: true },
  { field: "heightCentimetres", name: "height_centimetres", type: "numeric", trimmed: true },
] as const satisfies readonly (Omit<Column, "value"> & { readonly field: keyof Item; readonly trimmed?: true })[];

/** One item as read: its fields in ITEM_COLUMNS' order, typed by position, so a reordering that swaps types fails to compile. */
type ValuesOf<Columns extends readonly { readonly field: keyof Item }[]> = {
  -readonly [K in keyof Columns]: Columns[K] extends { readonly field: infer F extends keyof Item } ? Item[F] : never;
};
type ItemTuple = ValuesOf<typeof ITEM_COLUMNS>;

const itemOf = ([description, quantity, weightKilograms, lengthCentimetres, widthCentimetres, heightCentimetres]: ItemTuple): Item => ({
  description,
  quantity,
  weightKilograms,
  lengthCentimetres,
  widthCentimetres,
  heightCentimetres,
});

type Columns = typeof SHIPMENT_COLUMNS;

/** One shipment row as Prisma's $queryRaw deserialises the SELECT list below. */
export type ShipmentRow = { readonly [F in keyof Columns]: ReturnType<Columns[F]["value"]> } & {
  /** JSON text: the items, each an ItemTuple, in position order. */
  readonly items: string;
  /** JSON text: the attached media, each [mediaAssetId, purpose, sortOrder], in sortOrder. */
  readonly timelineMedia: string;
};

const SHIPMENT_FIELDS = Object.keys(SHIPMENT_COLUMNS) as (keyof Columns)[];

/** Read back as text: numeric's text keeps the column's scale, the canonical form the aggregate holds. */
const readsAsText = (type: ColumnType) => type === "numeric" || type === "uuid" || type === "shipment_state" || type === "payment_method";
/** Text parameters need no cast; the others are cast to their column's type. */
const castTo = (type: ColumnType) => (type === "text" ? "" : `::${type}`);

const readItem = (column: { readonly name: string; readonly type: ColumnType; readonly trimmed?: true }) =>
  `${column.trimmed ? `trim_scale(i.${column.name})` : `i.${column.name}`}${readsAsText(column.type) ? "::text" : ""}`;

/** The SELECT list of a shipment row (table alias `s`) with its items and attached media. */
export const SHIPMENT_SELECT_LIST = Prisma.raw(
  [
    ...SHIPMENT_FIELDS.map((field) => {
      const { name, type } = SHIPMENT_COLUMNS[field];
      return `s.${name}${readsAsText(type) ? "::text" : ""} AS "${field}"`;
    }),
    `(SELECT COALESCE(json_agg(json_build_array(${ITEM_COLUMNS.map(readItem).join(", ")}) ORDER BY i.position), '[]')::text
   FROM shipment_item i WHERE i.shipment_id = s.id) AS items`,
    `(SELECT COALESCE(json_agg(json_build_array(m.id::text, m.purpose, m.sort_order) ORDER BY m.sort_order), '[]')::text
   FROM media_asset m WHERE m.shipment_id = s.id) AS "timelineMedia"`,
  ].join(", "),
);

/**
 * A statement's text around `casts.length` values, each followed by its cast: built once, so a
 * write allocates only its values' array, as a tagged template would.
 */
function textAround(casts: readonly string[], open: string, close: string): string[] {
  return [open, ...casts.map((cast, i) => (i === casts.length - 1 ? `${cast}${close}` : `${cast}, `))];
}

/** The columns an insert of a shipment names: the row's, and the hash of its tracking code (written, never read back). */
export const SHIPMENT_INSERT_COLUMNS = Prisma.raw([...SHIPMENT_FIELDS.map((field) => SHIPMENT_COLUMNS[field].name), "tracking_code_sha256"].join(", "));
const SHIPMENT_VALUES_TEXT = textAround([...SHIPMENT_FIELDS.map((field) => castTo(SHIPMENT_COLUMNS[field].type)), "::bytea"], "", "");

/** A shipment's values in SHIPMENT_INSERT_COLUMNS' order, without parentheses (the create SELECTs them). */
export function shipmentInsertValues(shipment: Shipment, trackingCodeSha256: Uint8Array): Prisma.Sql {
  const values: unknown[] = SHIPMENT_FIELDS.map((field) => SHIPMENT_COLUMNS[field].value(shipment));
  values.push(Buffer.from(trackingCodeSha256));
  return new Prisma.Sql(SHIPMENT_VALUES_TEXT, values);
}

/** The columns an insert of items names. */
export const ITEM_INSERT_COLUMNS = Prisma.raw(["shipment_id", "position", ...ITEM_COLUMNS.map((column) => column.name)].join(", "));
const ITEM_VALUES_TEXT = textAround(["::uuid", "::int", ...ITEM_COLUMNS.map((column) => castTo(column.type))], "(", ")");

/** One item's row in ITEM_INSERT_COLUMNS' order, in parentheses. */
export function itemInsertValues(shipmentId: string, item: Item, position: number): Prisma.Sql {
  const values: unknown[] = [shipmentId, position];
  for (const column of ITEM_COLUMNS) values.push(item[column.field]);
  return new Prisma.Sql(ITEM_VALUES_TEXT, values);
}

/** The aggregate a row holds. */
export function shipmentFromRow(row: ShipmentRow): Shipment {
  return {
    id: row.id,
    shipmentNumber: row.shipmentNumber,
    merchantId: row.merchantId,
    externalReference: row.externalReference,
    state: row.state,
    version: row.version,
    recipientName: row.recipientName,
    recipientPhone: row.recipientPhone,
    alternateContactName: row.alternateContactName,
    alternateContactPhone: row.alternateContactPhone,
    totalWeightKilograms: row.totalWeightKilograms,
    declaredValue: row.declaredValue,
    codAmount: row.codAmount,
    currency: row.currency,
    paymentMethod: row.paymentMethod,
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
    items: (JSON.parse(row.items) as ItemTuple[]).map(itemOf),
    requirements: row.requirements,
    branchCode: row.branchCode,
    reasonCode: row.reasonCode,
    deliveryPin: row.deliveryPin,
    timelineMedia: (JSON.parse(row.timelineMedia) as [string, string, number][]).map(([mediaAssetId, purpose, sortOrder]): TimelineEntry => ({ mediaAssetId, purpose, sortOrder })),
    terms: {
      rateCardId: row.rateCardId,
      rateCardVersion: row.rateCardVersion,
      serviceLevel: row.serviceLevel,
      price: row.price,
      distanceMetres: row.distanceMetres,
    },
  };
}
