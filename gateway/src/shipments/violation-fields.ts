import { ConnectError } from "@connectrpc/connect";
import { reasonOf, violationsProblem } from "../problem/from-connect";
import type { RequestShapeName } from "./shape";

/*
 * The shipment service names the rules a create or cancel broke by its own canonical fields (the
 * ShipmentDraft's proto names: "cod_amount", "items[2].weight_kilograms"). The merchant reads the
 * fields of the request it sent, so the gateway words each field in that request's shape: one
 * table per shape, here and nowhere else.
 */

/** Draft fields of shape B, the canonical shape: nested where the request nests them. */
const SHAPE_B: Readonly<Record<string, string>> = {
  external_reference: "externalReference",
  pickup: "pickupLocationCode",
  saved_location_code: "pickupLocationCode",
  branch_code: "branchCode",
  recipient_name: "recipient.name",
  recipient_phone: "recipient.phone",
  alternate_contact_name: "recipient.alternateContactName",
  alternate_contact_phone: "recipient.alternateContactPhone",
  destination: "destination",
  destination_address_line: "destination.addressLine",
  destination_city_code: "destination.cityCode",
  items: "items",
  // Shape B sends no total: it is the sum of its items.
  total_weight_kilograms: "items",
  declared_value: "declaredValue",
  cod_amount: "codAmount",
  currency: "currency",
  payment_method: "paymentMethod",
  pickup_window_start: "pickupWindowStart",
  pickup_window_end: "pickupWindowEnd",
  requirements: "requirements",
  reason_code: "reasonCode",
};

const ITEM_B: Readonly<Record<string, string>> = {
  description: "description",
  quantity: "quantity",
  weight_kilograms: "weightKilograms",
  length_centimetres: "lengthCentimetres",
  width_centimetres: "widthCentimetres",
  height_centimetres: "heightCentimetres",
};

/** Shape A: the parcel is the draft's one item, its weightKg the total; payment follows codAmount. */
const SHAPE_A: Readonly<Record<string, string>> = {
  external_reference: "reference",
  pickup: "pickup",
  saved_location_code: "pickup.savedLocationCode",
  pickup_coordinate: "pickup",
  recipient_name: "recipient.name",
  recipient_phone: "recipient.mobile",
  destination: "destination",
  items: "parcel",
  total_weight_kilograms: "parcel.weightKg",
  cod_amount: "codAmount",
  payment_method: "codAmount",
  pickup_window_start: "pickupWindow.start",
  pickup_window_end: "pickupWindow.end",
  reason_code: "reason",
};

const ITEM_A: Readonly<Record<string, string>> = {
  description: "parcel.description",
  quantity: "parcel.pieces",
  // The unit weight is weightKg / pieces: the merchant sent (and can fix) weightKg.
  weight_kilograms: "parcel.weightKg",
};

const ITEM_FIELD = /^items\[(\d+)\]\.([a-z_]+)$/;
/** The same name in both shapes: timelineMedia is one list wherever it is sent. */
const MEDIA_FIELD = /^timeline_media\[(\d+)\]\.media_asset_id$/;
const LIST_ENTRY = /^([a-z_]+)\[(\d+)\]$/;

/**
 * A draft field as the merchant's field in `shape`. A field with no counterpart in that shape
 * (none should reach a merchant) becomes "body": internal names never leave the gateway.
 */
export function merchantField(shape: RequestShapeName, field: string): string {
  const media = MEDIA_FIELD.exec(field);
  if (media) return `timelineMedia[${media[1]}].mediaAssetId`;
  if (field === "timeline_media") return "timelineMedia";
  const item = ITEM_FIELD.exec(field);
  if (item) {
    const [, index, name = ""] = item;
    if (shape === "A") return ITEM_A[name] ?? "parcel";
    const mapped = ITEM_B[name];
    return mapped ? `items[${index}].${mapped}` : `items[${index}]`;
  }
  const entry = LIST_ENTRY.exec(field);
  if (entry) {
    const [, list = "", index] = entry;
    const mapped = (shape === "A" ? SHAPE_A : SHAPE_B)[list];
    if (!mapped) return "body";
    return shape === "A" ? mapped : `${mapped}[${index}]`;
  }
  return (shape === "A" ? SHAPE_A : SHAPE_B)[field] ?? "body";
}

/** A shipment service refusal with violations, reworded in the request's shape; anything else unchanged. */
export function inRequestShape(shape: RequestShapeName, error: unknown): unknown {
  if (error instanceof ConnectError && reasonOf(error) === "VALIDATION_FAILED") return violationsProblem(error, (field) => merchantField(shape, field));
  return error;
}
