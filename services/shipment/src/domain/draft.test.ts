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
  totalWeightKilograms: "",
  fieldNames: { payment_method: "paymentMethod", cod_amount: "codAmount", requirements: "requirements", pickup_window_end: "pickupWindowEnd" },
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
    expect(violations(draft({ codAmount: "10", paymentMethod: "PREPAID" }))).toEqual([{ field: "paymentMethod", code: "INCONSISTENT_VALUE" }]);
    expect(violations(draft({ paymentMethod: "COD" }))).toEqual([{ field: "paymentMethod", code: "INCONSISTENT_VALUE" }]);
  });

  it("refuses another currency with UNSUPPORTED_CURRENCY", () => {
    expect(violations(draft({ currency: "USD" }))).toBe("UNSUPPORTED_CURRENCY");
  });

  it("checks the pickup window: both or neither, start before end, end in the next 7 days", () => {
    expect(violations(draft({ pickupWindowStart: hours(1) }))).toEqual([{ field: "pickupWindowEnd", code: "REQUIRED" }]);
    expect(violations(draft({ pickupWindowStart: hours(3), pickupWindowEnd: hours(2) }))).toEqual([{ field: "pickupWindowEnd", code: "INCONSISTENT_VALUE" }]);
    expect(violations(draft({ pickupWindowStart: hours(-3), pickupWindowEnd: hours(-1) }))).toMatchObject([{ field: "pickupWindowEnd", code: "OUT_OF_RANGE" }]);
    expect(violations(draft({ pickupWindowStart: hours(1), pickupWindowEnd: hours(7 * 24 + 1) }))).toMatchObject([{ field: "pickupWindowEnd", code: "OUT_OF_RANGE" }]);
    expect(validateDraft(draft({ pickupWindowStart: hours(1), pickupWindowEnd: hours(7 * 24) }), now).pickupWindow).toEqual({ start: hours(1), end: hours(7 * 24) });
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
