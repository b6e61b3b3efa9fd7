import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ProblemError } from "../problem/problem-error";
import { coordinate, latitude } from "./rules";
import { fieldPath, validateBody } from "./validate";

function violationsOf(schema: z.ZodType, body: unknown) {
  try {
    validateBody(schema, body);
  } catch (error) {
    if (error instanceof ProblemError) return error.extra.violations?.map((v) => ({ field: v.field, code: v.code, en: v.message.en, ar: v.message.ar }));
    throw error;
  }
  return [];
}

const schema = z.strictObject({
  reference: z.string().min(1).max(5),
  pickup: coordinate,
  items: z.array(z.strictObject({ quantity: z.number().int().min(1).max(1000), code: z.string().regex(/^[A-Z]+$/) })).min(1).max(2),
  kind: z.enum(["A", "B"]).optional(),
});

describe("validateBody", () => {
  it("returns the parsed body when it follows the rules", () => {
    const body = { reference: "R1", pickup: { latitude: 24.7136, longitude: 46.675296 }, items: [{ quantity: 2, code: "X" }] };
    expect(validateBody(schema, body)).toEqual(body);
  });

  it("refuses a NUL character in any string, nested ones included, once per field", () => {
    const body = { reference: "R\u0000", pickup: { latitude: 24.7136, longitude: 46.675296 }, items: [{ quantity: 2, code: "X" }, { quantity: 1, code: "\u0000" }] };
    expect(violationsOf(schema, body)?.map(({ field, code }) => `${field} ${code}`)).toEqual(["items[1].code PATTERN_MISMATCH", "reference INVALID_FORMAT"]);
    expect(violationsOf(z.strictObject({ note: z.string() }), { note: "a\u0000b" })?.[0]).toMatchObject({ field: "note", code: "INVALID_FORMAT", en: "must be a valid text without NUL characters" });
  });

  it("answers a body nested thousands of levels deep with violations, not a stack overflow", () => {
    const deep = JSON.parse(`${"[".repeat(20_000)}"\\u0000"${"]".repeat(20_000)}`) as unknown;
    expect(violationsOf(schema, deep)?.map(({ code }) => code)).toEqual(["INVALID_TYPE", "INVALID_FORMAT"]);
  });

  it("maps each rule to its contract code, with dotted paths and both languages", () => {
    const got = violationsOf(schema, {
      reference: "",
      pickup: { latitude: 91, longitude: 46.1234567, altitude: 3 },
      items: [{ quantity: 1.5, code: "ab" }, { quantity: 0 }],
      kind: "C",
      extra: true,
    });
    expect(got?.map(({ field, code }) => `${field} ${code}`)).toEqual([
      "reference TOO_SHORT",
      "pickup.latitude OUT_OF_RANGE",
      "pickup.longitude NOT_MULTIPLE_OF",
      "pickup.altitude UNKNOWN_PROPERTY",
      "items[0].quantity INVALID_TYPE",
      "items[0].code PATTERN_MISMATCH",
      "items[1].quantity OUT_OF_RANGE",
      "items[1].code REQUIRED",
      "kind UNSUPPORTED_VALUE",
      "extra UNKNOWN_PROPERTY",
    ]);
    expect(got?.find((v) => v.field === "pickup.latitude")).toMatchObject({ en: "must be at most 90", ar: "يجب ألا يزيد على 90" });
    expect(got?.find((v) => v.field === "items[1].quantity")).toMatchObject({ en: "must be at least 1" });
    expect(got?.find((v) => v.field === "kind")).toMatchObject({ en: "must be one of A, B" });
    for (const v of got ?? []) {
      expect(v.en.length).toBeGreaterThan(0);
      expect(v.ar.length).toBeGreaterThan(0);
    }
  });

  it("reports too many items on the array itself", () => {
    const items = [{ quantity: 1, code: "A" }, { quantity: 1, code: "B" }, { quantity: 1, code: "C" }];
    expect(violationsOf(schema, { reference: "R", pickup: { latitude: 1, longitude: 1 }, items })).toEqual([
      { field: "items", code: "TOO_MANY_ITEMS", en: "must have at most 2 items", ar: "يجب ألا يزيد عدد العناصر على 2" },
    ]);
  });

  it("reports a missing body, a wrong top-level type and missing fields as REQUIRED or INVALID_TYPE", () => {
    expect(violationsOf(schema, undefined)).toEqual([{ field: "body", code: "REQUIRED", en: "is required", ar: "هذا الحقل مطلوب" }]);
    expect(violationsOf(schema, [])?.[0]).toMatchObject({ field: "body", code: "INVALID_TYPE" });
    expect(violationsOf(schema, {})?.map((v) => `${v.field} ${v.code}`)).toEqual(["reference REQUIRED", "pickup REQUIRED", "items REQUIRED"]);
    expect(violationsOf(schema, { reference: 5, pickup: "here", items: [] })?.map((v) => `${v.field} ${v.code}`)).toEqual([
      "reference INVALID_TYPE",
      "pickup INVALID_TYPE",
      "items TOO_FEW_ITEMS",
    ]);
  });

  it("caps the list at 20 violations", () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`unknown${i}`, i]));
    expect(violationsOf(schema, { reference: "R", pickup: { latitude: 1, longitude: 1 }, items: [{ quantity: 1, code: "A" }], ...many })).toHaveLength(20);
  });

  it("accepts every value on the 0.000001 grid and nothing between", () => {
    for (const value of [24.713601, -89.999999, 0.000001, 46.675296, 90, -90]) expect(latitude.safeParse(value).success).toBe(true);
    for (const value of [24.7136015, 0.0000005, 1e-7]) expect(latitude.safeParse(value).success).toBe(false);
  });

  it("says 'greater than' for an exclusive bound", () => {
    expect(violationsOf(z.strictObject({ weightKg: z.number().positive() }), { weightKg: 0 })).toEqual([
      { field: "weightKg", code: "OUT_OF_RANGE", en: "must be greater than 0", ar: "يجب أن يكون أكبر من 0" },
    ]);
  });

  it("names paths the contract's way", () => {
    expect(fieldPath(["items", 3, "weightKilograms"])).toBe("items[3].weightKilograms");
    expect(fieldPath([])).toBe("body");
  });
});
