import { describe, expect, it } from "vitest";
import { ProblemError } from "../problem/problem-error";
import { validateBody } from "../validation/validate";
import { shapeABody, shapeBBody } from "./create-schemas";

const A = {
  reference: "ORDER-1",
  pickup: { savedLocationCode: "RUH-WH-01" },
  destination: { latitude: 24.774265, longitude: 46.738586 },
  recipient: { name: "Noura", mobile: "0512345678" },
};
const B = {
  externalReference: "ORDER-2",
  pickupLocationCode: "RUH-WH-01",
  recipient: { name: "Fahad", phone: "0512345678" },
  destination: { latitude: 24.774265, longitude: 46.738586 },
  items: [{ description: "Shoes", quantity: 1, weightKilograms: 1 }],
};

function violations(schema: typeof shapeABody | typeof shapeBBody, body: unknown): string[] {
  try {
    validateBody(schema, body);
    return [];
  } catch (error) {
    if (!(error instanceof ProblemError)) throw error;
    return (error.extra.violations ?? []).map((v) => `${v.field} ${v.code}`);
  }
}

describe("money: one rule in both shapes (decisions.md section 2)", () => {
  const cases: [number, string | null][] = [
    [0, null],
    [0.01, null],
    [10_000_000, null],
    [-0.01, "OUT_OF_RANGE"],
    [10_000_000.01, "OUT_OF_RANGE"],
    [1.005, "NOT_MULTIPLE_OF"],
  ];
  it("holds for shape A's codAmount and shape B's codAmount and declaredValue alike", () => {
    for (const [value, code] of cases) {
      const expected = (field: string) => (code ? [`${field} ${code}`] : []);
      expect({ value, a: violations(shapeABody, { ...A, codAmount: value }) }).toEqual({ value, a: expected("codAmount") });
      expect({ value, b: violations(shapeBBody, { ...B, codAmount: value }) }).toEqual({ value, b: expected("codAmount") });
      expect({ value, b: violations(shapeBBody, { ...B, declaredValue: value }) }).toEqual({ value, b: expected("declaredValue") });
    }
  });
});

describe("weights and dimensions: the bounds the service applies, checked first here", () => {
  it("bounds shape A's weightKg by its pieces: each unit weighs 1 g to 1000 kg, 3 decimals", () => {
    expect(violations(shapeABody, { ...A, parcel: { pieces: 1, weightKg: 1000 } })).toEqual([]);
    expect(violations(shapeABody, { ...A, parcel: { pieces: 1, weightKg: 1000.001 } })).toEqual(["parcel.weightKg OUT_OF_RANGE"]);
    expect(violations(shapeABody, { ...A, parcel: { pieces: 3, weightKg: 3000 } })).toEqual([]);
    expect(violations(shapeABody, { ...A, parcel: { pieces: 100, weightKg: 0.05 } })).toEqual(["parcel.weightKg OUT_OF_RANGE"]);
    expect(violations(shapeABody, { ...A, parcel: { weightKg: 1.2345 } })).toEqual(["parcel.weightKg NOT_MULTIPLE_OF"]);
  });

  it("gives shape B's item weights and dimensions a 0.001 step", () => {
    const item = { description: "Shoes", quantity: 1, weightKilograms: 1.2345, lengthCentimetres: 10.0001, widthCentimetres: 10.001 };
    expect(violations(shapeBBody, { ...B, items: [item] })).toEqual(["items[0].weightKilograms NOT_MULTIPLE_OF", "items[0].lengthCentimetres NOT_MULTIPLE_OF"]);
  });
});
