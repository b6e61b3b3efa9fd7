import { DRAFT_BOUNDS, ITEM_BOUNDS, isRequirement, MONEY_BOUNDS, parseCoordinate, stepOf, type Coordinate } from "@tawsil/domain";
import { FailedPreconditionError } from "@tawsil/errors";
import Decimal from "decimal.js";
import { ShipmentValidationError, type FieldViolation } from "./errors";
import { timelineViolations, type TimelineEntry } from "./media-asset";
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
  /** Assets to attach; whether each is attachable is judged in the create's transaction. */
  readonly timelineMedia: readonly TimelineEntry[];
  /** "" for the sum of the items; shape A sends its parcel weight (the items carry weight / pieces). */
  readonly totalWeightKilograms: string;
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
  readonly timelineMedia: readonly TimelineEntry[];
}

const PHONE = /^\+9665\d{8}$/;
const PHONE_PATTERN = "^\\+9665[0-9]{8}$";
const MAX_WINDOW_AHEAD_MS = DRAFT_BOUNDS.pickupWindowDaysAhead * 24 * 3600 * 1000;
const D = Decimal.clone({ rounding: Decimal.ROUND_HALF_UP });

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
  const violate = (field: string, code: string, params?: Record<string, string>) => violations.push({ field, code, ...(params ? { params } : {}) });

  length(input.externalReference, DRAFT_BOUNDS.reference, "external_reference", violate);
  if (!input.pickup) violate("pickup", "REQUIRED");
  length(input.recipientName, DRAFT_BOUNDS.personName, "recipient_name", violate);
  if (!PHONE.test(input.recipientPhone)) violate("recipient_phone", "PATTERN_MISMATCH", { pattern: PHONE_PATTERN });
  if (input.alternateContactName !== "") length(input.alternateContactName, DRAFT_BOUNDS.personName, "alternate_contact_name", violate);
  if (input.alternateContactPhone !== "" && !PHONE.test(input.alternateContactPhone)) violate("alternate_contact_phone", "PATTERN_MISMATCH", { pattern: PHONE_PATTERN });
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
  if (givenTotal !== "") positiveDecimal(givenTotal, { max: null, decimals: ITEM_BOUNDS.weightKilograms.decimals }, "total_weight_kilograms", violate);
  const declaredValue = money(input.declaredValue, "declared_value", violate);
  const codAmount = money(input.codAmount, "cod_amount", violate);
  const paymentMethod = resolvePaymentMethod(input.paymentMethod, codAmount ?? "0");
  if (paymentMethod === "INCONSISTENT") violate("payment_method", "INCONSISTENT_VALUE");
  const pickupWindow = validateWindow(input.pickupWindowStart, input.pickupWindowEnd, now, violate);
  input.requirements.forEach((requirement, index) => {
    if (!isRequirement(requirement)) violate(`requirements[${index}]`, "UNSUPPORTED_VALUE");
  });
  if (input.requirements.length > DRAFT_BOUNDS.requirements.max) violate("requirements", "TOO_MANY_ITEMS", { max: String(DRAFT_BOUNDS.requirements.max) });
  for (const v of timelineViolations(input.timelineMedia)) violate(v.field, v.code, v.params);

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
    timelineMedia: [...input.timelineMedia],
  };
}

type Violate = (field: string, code: string, params?: Record<string, string>) => void;

/** A decimal string, or null when it is not one (the gateway only ever sends numbers). */
function parseDecimal(value: string): Decimal | null {
  try {
    const parsed = new D(value);
    return parsed.isFinite() ? parsed : null;
  } catch {
    return null;
  }
}

/** A length rule, with the codes the gateway's schema gives (TOO_SHORT, TOO_LONG). */
function length(value: string, bounds: { readonly min: number; readonly max: number }, field: string, violate: Violate): void {
  if (value.length < bounds.min) violate(field, "TOO_SHORT", { min: String(bounds.min) });
  else if (value.length > bounds.max) violate(field, "TOO_LONG", { max: String(bounds.max) });
}

/**
 * A decimal > 0, at most `max` (when given) and `decimals` decimals: OUT_OF_RANGE or
 * NOT_MULTIPLE_OF, as the gateway's schema says it. Null when it breaks a rule.
 */
function positiveDecimal(value: string, bounds: { readonly max: number | null; readonly decimals: number }, field: string, violate: Violate): Decimal | null {
  const parsed = parseDecimal(value);
  if (parsed === null) violate(field, "INVALID_FORMAT", { format: "decimal" });
  else if (!parsed.greaterThan(0)) violate(field, "OUT_OF_RANGE", { min: "0", exclusive: "true" });
  else if (bounds.max !== null && parsed.greaterThan(bounds.max)) violate(field, "OUT_OF_RANGE", { max: String(bounds.max) });
  else if (parsed.decimalPlaces() > bounds.decimals) violate(field, "NOT_MULTIPLE_OF", { multipleOf: stepOf(bounds.decimals) });
  else return parsed;
  return null;
}

/**
 * decisions.md section 2, one rule for both shapes: >= 0 and at most 10,000,000.00 (else
 * OUT_OF_RANGE), at most 2 decimals (else NOT_MULTIPLE_OF). Canonical "12.50"; "" means 0.
 */
function money(value: string, field: string, violate: Violate): string | null {
  const amount = parseDecimal(value === "" ? "0" : value);
  if (amount === null) violate(field, "INVALID_FORMAT", { format: "decimal" });
  else if (amount.lessThan(MONEY_BOUNDS.min) || amount.greaterThan(MONEY_BOUNDS.max)) {
    violate(field, "OUT_OF_RANGE", { min: String(MONEY_BOUNDS.min), max: String(MONEY_BOUNDS.max) });
  } else if (amount.decimalPlaces() > MONEY_BOUNDS.decimals) violate(field, "NOT_MULTIPLE_OF", { multipleOf: stepOf(MONEY_BOUNDS.decimals) });
  else return amount.toFixed(MONEY_BOUNDS.decimals);
  return null;
}

function validateItems(items: readonly ItemInput[], violate: Violate): Item[] | null {
  if (items.length < DRAFT_BOUNDS.items.min) {
    violate("items", "TOO_FEW_ITEMS", { min: String(DRAFT_BOUNDS.items.min) });
    return null;
  }
  if (items.length > DRAFT_BOUNDS.items.max) {
    violate("items", "TOO_MANY_ITEMS", { max: String(DRAFT_BOUNDS.items.max) });
    return null;
  }
  let broken = 0;
  const report: Violate = (field, code, params) => {
    broken += 1;
    violate(field, code, params);
  };
  const result = items.map((item, index): Item => {
    const at = (field: string) => `items[${index}].${field}`;
    length(item.description, ITEM_BOUNDS.description, at("description"), report);
    const { min, max } = ITEM_BOUNDS.quantity;
    if (!Number.isInteger(item.quantity)) report(at("quantity"), "INVALID_TYPE", { expected: "int" });
    else if (item.quantity < min || item.quantity > max) report(at("quantity"), "OUT_OF_RANGE", { min: String(min), max: String(max) });
    const weight = positiveDecimal(item.weightKilograms, ITEM_BOUNDS.weightKilograms, at("weight_kilograms"), report);
    const dimension = (value: string, field: string): string | null =>
      value === "" ? null : (positiveDecimal(value, ITEM_BOUNDS.dimensionCentimetres, at(field), report)?.toString() ?? null);
    return {
      description: item.description,
      quantity: item.quantity,
      weightKilograms: weight ? weight.toFixed(3) : "0.000",
      lengthCentimetres: dimension(item.lengthCentimetres, "length_centimetres"),
      widthCentimetres: dimension(item.widthCentimetres, "width_centimetres"),
      heightCentimetres: dimension(item.heightCentimetres, "height_centimetres"),
    };
  });
  return broken === 0 ? result : null;
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
