import { ValidationError } from "@tawsil/errors";
import { describe, expect, it } from "vitest";
import { parseEligibilityQuery, type EligibilityQueryInput } from "./parcel";

const parcel = { totalWeightGrams: 2500n, longestSideMm: 400, requirements: ["FRAGILE"], cashOnDelivery: true };

function problem(input: EligibilityQueryInput): { field: string; message: string } | undefined {
  try {
    parseEligibilityQuery(input);
    return undefined;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return { field: error.field, message: error.message };
  }
}

describe("parseEligibilityQuery", () => {
  it("turns a well-formed question into a query, collapsing repeated requirements", () => {
    expect(parseEligibilityQuery({ cityCode: "RUH", parcel: { ...parcel, requirements: ["FRAGILE", "COLD_CHAIN", "FRAGILE"] } })).toEqual({
      cityCode: "RUH",
      weightGrams: 2500,
      longestSideMm: 400,
      requirements: new Set(["FRAGILE", "COLD_CHAIN"]),
      cashOnDelivery: true,
    });
  });

  it("accepts a city it may not serve and a parcel no vehicle can carry: those are answers, not errors", () => {
    expect(parseEligibilityQuery({ cityCode: "TIF", parcel: { ...parcel, totalWeightGrams: 10_000_000n, longestSideMm: 0 } })).toMatchObject({
      cityCode: "TIF",
      weightGrams: 10_000_000,
      longestSideMm: 0,
    });
  });

  it.each([
    ["an empty city code", { cityCode: "", parcel }, "city_code"],
    ["a lower-case city code", { cityCode: "ruh", parcel }, "city_code"],
    ["a city name instead of a code", { cityCode: "RIYADH", parcel }, "city_code"],
    ["no parcel", { cityCode: "RUH", parcel: undefined }, "parcel"],
    ["a zero weight", { cityCode: "RUH", parcel: { ...parcel, totalWeightGrams: 0n } }, "parcel.total_weight_grams"],
    ["a negative weight", { cityCode: "RUH", parcel: { ...parcel, totalWeightGrams: -1n } }, "parcel.total_weight_grams"],
    ["a weight beyond exact arithmetic", { cityCode: "RUH", parcel: { ...parcel, totalWeightGrams: 2n ** 60n } }, "parcel.total_weight_grams"],
    ["a negative longest side", { cityCode: "RUH", parcel: { ...parcel, longestSideMm: -1 } }, "parcel.longest_side_mm"],
    ["a requirement outside the catalogue", { cityCode: "RUH", parcel: { ...parcel, requirements: ["FRAGILE", "HAZMAT"] } }, "parcel.requirements[1]"],
    ["a lower-case requirement", { cityCode: "RUH", parcel: { ...parcel, requirements: ["fragile"] } }, "parcel.requirements[0]"],
  ] as const)("rejects %s", (_name, input, field) => {
    expect(problem(input)?.field).toBe(field);
  });
});
