import { isRequirement, parseCoordinate, type Coordinate } from "@tawsil/domain";
import { FailedPreconditionError } from "@tawsil/errors";
import Decimal from "decimal.js";
import { ShipmentValidationError, type FieldViolation } from "./errors";
import type { Item, PaymentMethod } from "./shipment";

export type PickupInput = { readonly kind: "saved"; readonly code: string } | { readonly kind: "coordinate"; readonly coordinate: Coordinate | undefined };

/** A create request after the gateway's validation, shape-independent; optional values are "" or null. */
export interface DraftInput {
  readonly externalReference: string;
  readonly pickup: PickupInput | null;
  readonly branchCode: string;
  readonly recipientName: string;
  readonly recipientPhone: string;
  readonly alternateContactName: string;
  readonly alternateContactPhone: string;
  readonly destination: Coordinate | undefined;
  readonly destinationAddressLine: string;
  readonly destinationCityCode: string;
  readonly items: readonly ItemInput[];
  readonly declaredValue: string;
  readonly codAmount: string;
  readonly currency: string;
  readonly paymentMethod: PaymentMethod | null;
  readonly pickupWindowStart: Date | null;
  readonly pickupWindowEnd: Date | null;
  readonly requirements: readonly string[];
  /** "" for the sum of the items; shape A sends its parcel weight (the items carry weight / pieces). */
  readonly totalWeightKilograms: string;
  /** Draft field (snake_case, e.g. "cod_amount") -> the caller's path (e.g. "codAmount"). */
  readonly fieldNames: Readonly<Record<string, string>>;
}

export interface ItemInput {
  readonly description: string;
  readonly quantity: number;
  readonly weightKilograms: string;
  readonly lengthCentimetres: string;
  readonly widthCentimetres: string;
  readonly heightCentimetres: string;
}

/** A draft that passed every rule the service can judge without its peers. */
export interface ValidDraft {
  readonly externalReference: string;
  readonly pickup: PickupInput;
  readonly branchCode: string | null;
  readonly recipientName: string;
  readonly recipientPhone: string;
  readonly alternateContactName: string | null;
  readonly alternateContactPhone: string | null;
  readonly destination: Coordinate;
  readonly destinationAddressLine: string | null;
  readonly destinationCityCode: string | null;
  readonly items: readonly Item[];
  readonly totalWeightKilograms: string;
  readonly declaredValue: string;
  readonly codAmount: string;
  readonly currency: "SAR";
  readonly paymentMethod: PaymentMethod;
  readonly pickupWindow: { readonly start: Date; readonly end: Date } | null;
  readonly requirements: readonly string[];
  readonly fieldNames: Readonly<Record<string, string>>;
}

const PHONE = /^\+9665\d{8}$/;
const DECIMAL = /^\d{1,10}(\.\d{1,3})?$/;
const MAX_WINDOW_AHEAD_MS = 7 * 24 * 3600 * 1000;
const D = Decimal.clone({ rounding: Decimal.ROUND_HALF_UP });

/** The caller's name of a draft field, for violations. */
export function fieldName(names: Readonly<Record<string, string>>, field: string): string {
  const bracket = field.indexOf("[");
  const head = bracket < 0 ? field : field.slice(0, bracket);
  const mapped = names[field] ?? names[head];
  if (mapped === undefined) return field;
  return names[field] !== undefined || bracket < 0 ? mapped : mapped + field.slice(bracket);
}

/** Σ quantity × unit weight, 3 decimals. */
export function totalWeight(items: readonly Pick<Item, "quantity" | "weightKilograms">[]): string {
  return items.reduce((sum, item) => sum.plus(new D(item.weightKilograms).times(item.quantity)), new D(0)).toFixed(3);
}

/** PREPAID unless cash is collected; an explicit method must agree with the COD amount. */
export function resolvePaymentMethod(given: PaymentMethod | null, codAmount: string): PaymentMethod | "INCONSISTENT" {
  const derived: PaymentMethod = new D(codAmount).greaterThan(0) ? "COD" : "PREPAID";
  return given === null || given === derived ? derived : "INCONSISTENT";
}

/**
 * Checks a draft against the rules the service owns (decisions.md section 2) and canonicalises it.
 * Every violation found is reported together; an unsupported currency is a FailedPrecondition of
 * its own (422 UNSUPPORTED_CURRENCY), judged once the draft is otherwise valid.
 */
export function validateDraft(input: DraftInput, now: Date): ValidDraft {
  const violations: FieldViolation[] = [];
  const violate = (field: string, code: string, params?: Record<string, string>) =>
    violations.push({ field: fieldName(input.fieldNames, field), code, ...(params ? { params } : {}) });

  if (input.externalReference.length < 1 || input.externalReference.length > 128) violate("external_reference", "OUT_OF_RANGE");
  if (!input.pickup) violate("pickup", "REQUIRED");
  if (input.recipientName.length < 1 || input.recipientName.length > 120) violate("recipient_name", "OUT_OF_RANGE");
  if (!PHONE.test(input.recipientPhone)) violate("recipient_phone", "PATTERN_MISMATCH");
  if (input.alternateContactPhone !== "" && !PHONE.test(input.alternateContactPhone)) violate("alternate_contact_phone", "PATTERN_MISMATCH");
  let destination: Coordinate | undefined;
  try {
    destination = parseCoordinate("destination", input.destination);
  } catch {
    violate("destination", "OUT_OF_RANGE");
  }
  let pickup = input.pickup;
  if (pickup?.kind === "coordinate") {
    try {
      pickup = { kind: "coordinate", coordinate: parseCoordinate("pickup", pickup.coordinate) };
    } catch {
      violate("pickup_coordinate", "OUT_OF_RANGE");
    }
  }

  const items = validateItems(input.items, violate);
  const givenTotal = input.totalWeightKilograms;
  if (givenTotal !== "" && !(DECIMAL.test(givenTotal) && new D(givenTotal).greaterThan(0))) violate("total_weight_kilograms", "OUT_OF_RANGE");
  const declaredValue = money(input.declaredValue, "declared_value", violate);
  const codAmount = money(input.codAmount, "cod_amount", violate);
  const paymentMethod = resolvePaymentMethod(input.paymentMethod, codAmount ?? "0");
  if (paymentMethod === "INCONSISTENT") violate("payment_method", "INCONSISTENT_VALUE");
  const pickupWindow = validateWindow(input.pickupWindowStart, input.pickupWindowEnd, now, violate);
  input.requirements.forEach((requirement, index) => {
    if (!isRequirement(requirement)) violate(`requirements[${index}]`, "UNSUPPORTED_VALUE");
  });
  if (input.requirements.length > 20) violate("requirements", "TOO_MANY_ITEMS", { max: "20" });

  if (violations.length > 0) throw new ShipmentValidationError(violations.slice(0, 20));
  if (input.currency !== "" && input.currency !== "SAR") {
    throw new FailedPreconditionError("UNSUPPORTED_CURRENCY", `currency ${input.currency} is not supported; only SAR is`);
  }
  if (!pickup || !destination || !items || declaredValue === null || codAmount === null || paymentMethod === "INCONSISTENT") {
    throw new Error("unreachable: a missing value was reported as a violation");
  }
  const orNull = (value: string) => (value === "" ? null : value);
  return {
    externalReference: input.externalReference,
    pickup,
    branchCode: orNull(input.branchCode),
    recipientName: input.recipientName,
    recipientPhone: input.recipientPhone,
    alternateContactName: orNull(input.alternateContactName),
    alternateContactPhone: orNull(input.alternateContactPhone),
    destination,
    destinationAddressLine: orNull(input.destinationAddressLine),
    destinationCityCode: orNull(input.destinationCityCode),
    items,
    totalWeightKilograms: givenTotal === "" ? totalWeight(items) : new D(givenTotal).toFixed(3),
    declaredValue,
    codAmount,
    currency: "SAR",
    paymentMethod,
    pickupWindow,
    requirements: [...input.requirements],
    fieldNames: input.fieldNames,
  };
}

type Violate = (field: string, code: string, params?: Record<string, string>) => void;

/** A non-negative amount with at most 2 decimals, canonical "12.50"; "" means 0. */
function money(value: string, field: string, violate: Violate): string | null {
  const text = value === "" ? "0" : value;
  if (!/^\d{1,10}(\.\d{1,2})?$/.test(text)) {
    violate(field, "OUT_OF_RANGE");
    return null;
  }
  return new D(text).toFixed(2);
}

function validateItems(items: readonly ItemInput[], violate: Violate): Item[] | null {
  if (items.length < 1 || items.length > 100) {
    violate("items", items.length < 1 ? "TOO_FEW_ITEMS" : "TOO_MANY_ITEMS");
    return null;
  }
  let valid = true;
  const result = items.map((item, index): Item => {
    const at = (field: string) => `items[${index}].${field}`;
    const check = (ok: boolean, field: string, code: string) => {
      if (!ok) {
        violate(at(field), code);
        valid = false;
      }
    };
    check(item.description.length >= 1 && item.description.length <= 160, "description", "OUT_OF_RANGE");
    check(Number.isInteger(item.quantity) && item.quantity >= 1 && item.quantity <= 1000, "quantity", "OUT_OF_RANGE");
    const weight = DECIMAL.test(item.weightKilograms) ? new D(item.weightKilograms) : null;
    check(weight !== null && weight.greaterThan(0) && weight.lessThanOrEqualTo(1000), "weight_kilograms", "OUT_OF_RANGE");
    const dimension = (value: string, field: string): string | null => {
      if (value === "") return null;
      const parsed = DECIMAL.test(value) ? new D(value) : null;
      check(parsed !== null && parsed.greaterThan(0) && parsed.lessThanOrEqualTo(500), field, "OUT_OF_RANGE");
      return parsed ? parsed.toString() : null;
    };
    return {
      description: item.description,
      quantity: item.quantity,
      weightKilograms: weight ? weight.toFixed(3) : "0.000",
      lengthCentimetres: dimension(item.lengthCentimetres, "length_centimetres"),
      widthCentimetres: dimension(item.widthCentimetres, "width_centimetres"),
      heightCentimetres: dimension(item.heightCentimetres, "height_centimetres"),
    };
  });
  return valid ? result : null;
}

/** Both or neither; start before end; end in the future and at most 7 days ahead. */
function validateWindow(start: Date | null, end: Date | null, now: Date, violate: Violate): { start: Date; end: Date } | null {
  if (start === null && end === null) return null;
  if (start === null || end === null) {
    violate(start === null ? "pickup_window_start" : "pickup_window_end", "REQUIRED");
    return null;
  }
  if (start.getTime() >= end.getTime()) violate("pickup_window_end", "INCONSISTENT_VALUE");
  else if (end.getTime() <= now.getTime()) violate("pickup_window_end", "OUT_OF_RANGE", { min: now.toISOString() });
  else if (end.getTime() > now.getTime() + MAX_WINDOW_AHEAD_MS) {
    violate("pickup_window_end", "OUT_OF_RANGE", { max: new Date(now.getTime() + MAX_WINDOW_AHEAD_MS).toISOString() });
  }
  return { start, end };
}

/** The parcel as pricing and dispatch judge it: grams, and the longest side of the largest item in mm. */
export function parcelOf(draft: Pick<ValidDraft, "items" | "totalWeightKilograms">): { totalWeightGrams: bigint; longestSideMm: number } {
  const grams = BigInt(new D(draft.totalWeightKilograms).times(1000).toFixed(0));
  let largest: { volume: Decimal; longest: Decimal } | null = null;
  for (const item of draft.items) {
    const sides = [item.lengthCentimetres, item.widthCentimetres, item.heightCentimetres];
    if (sides.some((side) => side === null)) continue;
    const values = sides.map((side) => new D(side ?? "0"));
    const volume = values.reduce((product, side) => product.times(side), new D(1));
    const longest = D.max(...values);
    if (!largest || volume.greaterThan(largest.volume)) largest = { volume, longest };
  }
  return { totalWeightGrams: grams, longestSideMm: largest ? largest.longest.times(10).ceil().toNumber() : 0 };
}
