import { describe, expect, it } from "vitest";
import { ProblemError } from "../problem/problem-error";
import { validateBody } from "../validation/validate";
import { locationsBody, stepBody } from "./schemas";

/** The rules a driver's body is held to before anything reaches dispatch (decisions.md section 17). */
function violationsOf(schema: Parameters<typeof validateBody>[0], body: unknown): { field: string; code: string }[] {
  try {
    validateBody(schema, body);
    return [];
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    return (error.extra.violations ?? []).map(({ field, code }) => ({ field, code }));
  }
}

const fix = { latitude: 24.7136, longitude: 46.6753 };

describe("driver bodies", () => {
  it("takes 1 to 100 fixes a call", () => {
    expect(violationsOf(locationsBody, { fixes: Array.from({ length: 100 }, () => fix) })).toEqual([]);
    expect(violationsOf(locationsBody, { fixes: Array.from({ length: 101 }, () => fix) })).toEqual([{ field: "fixes", code: "TOO_MANY_ITEMS" }]);
    expect(violationsOf(locationsBody, { fixes: [] })).toEqual([{ field: "fixes", code: "TOO_FEW_ITEMS" }]);
    expect(violationsOf(locationsBody, { fixes: [{ ...fix, recordedAt: "yesterday" }] })).toEqual([{ field: "fixes[0].recordedAt", code: "INVALID_FORMAT" }]);
  });

  it("asks a reasonCode of DELIVERY_FAILED alone, and the proof of DELIVERED alone", () => {
    expect(violationsOf(stepBody, { step: "DELIVERY_FAILED" })).toEqual([{ field: "reasonCode", code: "REQUIRED" }]);
    expect(violationsOf(stepBody, { step: "DELIVERY_FAILED", reasonCode: "RECIPIENT_ABSENT" })).toEqual([]);
    expect(violationsOf(stepBody, { step: "PICKED_UP", reasonCode: "RECIPIENT_ABSENT" })).toEqual([{ field: "reasonCode", code: "INCONSISTENT_VALUE" }]);
    expect(violationsOf(stepBody, { step: "OUT_FOR_DELIVERY", deliveryPin: "1234", codCollected: { amount: 10, currency: "SAR" } })).toEqual([
      { field: "deliveryPin", code: "INCONSISTENT_VALUE" },
      { field: "codCollected", code: "INCONSISTENT_VALUE" },
    ]);
    expect(violationsOf(stepBody, { step: "DELIVERED", deliveryPin: "1234", evidenceMediaAssetIds: ["0192f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b"], codCollected: { amount: 149.5, currency: "SAR" } })).toEqual([]);
    expect(violationsOf(stepBody, { step: "DELIVERED", deliveryPin: "12345" })).toEqual([{ field: "deliveryPin", code: "PATTERN_MISMATCH" }]);
    expect(violationsOf(stepBody, { step: "DELIVERED", codCollected: { amount: 1.005, currency: "SAR" } })).toEqual([{ field: "codCollected.amount", code: "NOT_MULTIPLE_OF" }]);
  });
});
