import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "./cursor";
import { parcelOf, validateDraft, type DraftInput } from "./draft";
import { trackingUrl } from "./tracking-link";

const now = new Date("2026-11-27T10:00:00.000Z");
const hours = (h: number) => new Date(now.getTime() + h * 3600_000);
const draft = (fields: Partial<DraftInput> = {}): DraftInput => ({
  externalReference: "ORDER-1",
  pickup: { kind: "coordinate", coordinate: { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 } },
  branchCode: "",
  recipientName: "Sara",
  recipientPhone: "+966512345678",
  alternateContactName: "",
  alternateContactPhone: "",
  destination: { latitudeMicro: 24_666_000, longitudeMicro: 46_730_000 },
  destinationAddressLine: "",
  destinationCityCode: "",
  items: [{ description: "Box", quantity: 3, weightKilograms: "0.333", lengthCentimetres: "", widthCentimetres: "", heightCentimetres: "" }],
  declaredValue: "",
  codAmount: "",
  currency: "",
  paymentMethod: null,
  pickupWindowStart: null,
  pickupWindowEnd: null,
  requirements: [],
  timelineMedia: [],
  totalWeightKilograms: "",
  ...fields,
});
const violations = (input: DraftInput) => {
  try {
    validateDraft(input, now);
  } catch (error) {
    return (error as { violations?: unknown; reason: string }).violations ?? (error as { reason: string }).reason;
  }
  return [];
};

describe("validateDraft", () => {
  it("defaults SAR, PREPAID and zero amounts, and sums quantity x unit weight to 3 decimals", () => {
    const valid = validateDraft(draft({ items: [...draft().items, { description: "Bag", quantity: 2, weightKilograms: "1.25", lengthCentimetres: "", widthCentimetres: "", heightCentimetres: "" }] }), now);
    expect([valid.currency, valid.paymentMethod, valid.codAmount, valid.declaredValue, valid.totalWeightKilograms]).toEqual(["SAR", "PREPAID", "0.00", "0.00", "3.499"]);
  });

  it("derives COD from a COD amount and refuses an inconsistent method on the method's field", () => {
    expect(validateDraft(draft({ codAmount: "150.5" }), now)).toMatchObject({ paymentMethod: "COD", codAmount: "150.50" });
    expect(violations(draft({ codAmount: "10", paymentMethod: "PREPAID" }))).toEqual([{ field: "payment_method", code: "INCONSISTENT_VALUE" }]);
    expect(violations(draft({ paymentMethod: "COD" }))).toEqual([{ field: "payment_method", code: "INCONSISTENT_VALUE" }]);
  });

  it("refuses another currency with UNSUPPORTED_CURRENCY", () => {
    expect(violations(draft({ currency: "USD" }))).toBe("UNSUPPORTED_CURRENCY");
  });

  it("checks the pickup window: both or neither, start before end, end in the next 7 days", () => {
    expect(violations(draft({ pickupWindowStart: hours(1) }))).toEqual([{ field: "pickup_window_end", code: "REQUIRED" }]);
    expect(violations(draft({ pickupWindowStart: hours(3), pickupWindowEnd: hours(2) }))).toEqual([{ field: "pickup_window_end", code: "INCONSISTENT_VALUE" }]);
    expect(violations(draft({ pickupWindowStart: hours(-3), pickupWindowEnd: hours(-1) }))).toMatchObject([{ field: "pickup_window_end", code: "OUT_OF_RANGE" }]);
    expect(violations(draft({ pickupWindowStart: hours(1), pickupWindowEnd: hours(7 * 24 + 1) }))).toMatchObject([{ field: "pickup_window_end", code: "OUT_OF_RANGE" }]);
    expect(validateDraft(draft({ pickupWindowStart: hours(1), pickupWindowEnd: hours(7 * 24) }), now).pickupWindow).toEqual({ start: hours(1), end: hours(7 * 24) });
  });

  it("names violations by the draft's own fields, with the codes and params the gateway's schema gives", () => {
    const item = { description: "", quantity: 1, weightKilograms: "1.2345", lengthCentimetres: "500.5", widthCentimetres: "10.0001", heightCentimetres: "" };
    expect(violations(draft({ items: [item], totalWeightKilograms: "0", recipientName: "n".repeat(121), alternateContactPhone: "0512345678" }))).toEqual([
      { field: "recipient_name", code: "TOO_LONG", params: { max: "120" } },
      { field: "alternate_contact_phone", code: "PATTERN_MISMATCH", params: { pattern: "^\\+9665[0-9]{8}$" } },
      { field: "items[0].description", code: "TOO_SHORT", params: { min: "1" } },
      { field: "items[0].weight_kilograms", code: "NOT_MULTIPLE_OF", params: { multipleOf: "0.001" } },
      { field: "items[0].length_centimetres", code: "OUT_OF_RANGE", params: { max: "500" } },
      { field: "items[0].width_centimetres", code: "NOT_MULTIPLE_OF", params: { multipleOf: "0.001" } },
      { field: "total_weight_kilograms", code: "OUT_OF_RANGE", params: { min: "0", exclusive: "true" } },
    ]);
    const heavy = { ...item, description: "Box", weightKilograms: "1000.001", lengthCentimetres: "", widthCentimetres: "" };
    expect(violations(draft({ items: [heavy] }))).toEqual([{ field: "items[0].weight_kilograms", code: "OUT_OF_RANGE", params: { max: "1000" } }]);
  });

  it("holds money to one rule: >= 0 and at most 10,000,000.00 (OUT_OF_RANGE), cents (NOT_MULTIPLE_OF)", () => {
    const range = { min: "0", max: "10000000" };
    expect(validateDraft(draft({ declaredValue: "10000000", codAmount: "0" }), now)).toMatchObject({ declaredValue: "10000000.00", codAmount: "0.00" });
    expect(violations(draft({ declaredValue: "10000000.01" }))).toEqual([{ field: "declared_value", code: "OUT_OF_RANGE", params: range }]);
    expect(violations(draft({ codAmount: "-1" }))).toEqual([{ field: "cod_amount", code: "OUT_OF_RANGE", params: range }]);
    expect(violations(draft({ codAmount: "99999999999" }))).toEqual([{ field: "cod_amount", code: "OUT_OF_RANGE", params: range }]);
    expect(violations(draft({ codAmount: "1.005" }))).toEqual([{ field: "cod_amount", code: "NOT_MULTIPLE_OF", params: { multipleOf: "0.01" } }]);
  });

  it("refuses requirements outside the catalogue with UNSUPPORTED_VALUE at their index", () => {
    expect(violations(draft({ requirements: ["FRAGILE", "JETPACK"] }))).toEqual([{ field: "requirements[1]", code: "UNSUPPORTED_VALUE" }]);
  });

  it("gives pricing the longest side of the largest item, 0 without dimensions", () => {
    const items = [
      { description: "a", quantity: 1, weightKilograms: "1", lengthCentimetres: "10", widthCentimetres: "10", heightCentimetres: "45.5" },
      { description: "b", quantity: 1, weightKilograms: "1", lengthCentimetres: "30", widthCentimetres: "30", heightCentimetres: "30" },
    ];
    expect(parcelOf(validateDraft(draft({ items }), now))).toEqual({ totalWeightGrams: 2000n, longestSideMm: 300 });
    expect(parcelOf(validateDraft(draft(), now))).toEqual({ totalWeightGrams: 999n, longestSideMm: 0 });
  });
});

describe("derived values", () => {
  const secret = new Uint8Array(32).fill(7);
  it("derives a stable 43-character tracking code from the shipment id", () => {
    const url = trackingUrl("http://localhost:8080/", secret, "0193a000-0000-7000-8000-000000000001");
    expect(url).toMatch(/^http:\/\/localhost:8080\/t\/[A-Za-z0-9_-]{43}$/);
    expect(trackingUrl("http://localhost:8080", secret, "0193a000-0000-7000-8000-000000000001")).toBe(url);
  });

  it("round-trips a cursor for its own query only", () => {
    const query = { merchantId: "m1", state: null, externalReference: null };
    const position = { createdAt: now, id: "0193a000-0000-7000-8000-000000000001" };
    const cursor = encodeCursor(secret, query, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{1,256}$/);
    expect(decodeCursor(secret, query, cursor)).toEqual(position);
    expect(() => decodeCursor(secret, { ...query, state: "CANCELLED" }, cursor)).toThrow(expect.objectContaining({ reason: "INVALID_CURSOR" }));
  });
});
