import { describe, expect, it } from "vitest";
import { parseMerchantId, parseOptionalCityCode } from "./identifiers";
import { parseCodAmount, parseParcel, type ParcelInput } from "./parcel";

const PARCEL: ParcelInput = { totalWeightGrams: 1000n, longestSideMm: 0, requirements: [], cashOnDelivery: false };
const field = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as { field?: string }).field;
  }
  return "valid";
};

describe("request fields", () => {
  it("accepts the estimate's default parcel and prepaid COD", () => {
    expect(parseParcel("parcel", PARCEL, parseCodAmount("cod_amount", ""))).toEqual({ totalWeightGrams: 1000, longestSideMm: 0, requirements: [], cashOnDelivery: false });
  });

  it("refuses a missing parcel, non-positive weight, unknown or repeated requirements", () => {
    expect(field(() => parseParcel("parcel", undefined, "0"))).toBe("parcel");
    expect(field(() => parseParcel("parcel", { ...PARCEL, totalWeightGrams: 0n }, "0"))).toBe("parcel.total_weight_grams");
    expect(field(() => parseParcel("parcel", { ...PARCEL, longestSideMm: -1 }, "0"))).toBe("parcel.longest_side_mm");
    expect(field(() => parseParcel("parcel", { ...PARCEL, requirements: ["FRAGILE", "TELEPORT"] }, "0"))).toBe("parcel.requirements[1]");
    expect(field(() => parseParcel("parcel", { ...PARCEL, requirements: ["FRAGILE", "FRAGILE"] }, "0"))).toBe("parcel.requirements[1]");
  });

  it("requires the COD flag to agree with the amount", () => {
    expect(field(() => parseParcel("parcel", PARCEL, "10.00"))).toBe("parcel.cash_on_delivery");
    expect(field(() => parseParcel("parcel", { ...PARCEL, cashOnDelivery: true }, "0"))).toBe("parcel.cash_on_delivery");
    expect(field(() => parseParcel("parcel", { ...PARCEL, cashOnDelivery: true }, "10.00"))).toBe("valid");
    expect(field(() => parseParcel("parcel", PARCEL, "0.00"))).toBe("valid");
  });

  it("accepts COD amounts with at most two decimals", () => {
    expect(parseCodAmount("cod_amount", "")).toBe("0");
    expect(parseCodAmount("cod_amount", "150.5")).toBe("150.5");
    for (const bad of ["-1", "1.234", "01", "1e3", " 1", "abc"]) expect(field(() => parseCodAmount("cod_amount", bad)), bad).toBe("cod_amount");
  });

  it("accepts uuids as merchant ids and three capitals as city codes", () => {
    expect(parseMerchantId("merchant_id", "6F1D2C3B-4A59-4E8F-9D0C-1B2A3C4D5E6F")).toBe("6f1d2c3b-4a59-4e8f-9d0c-1b2a3c4d5e6f");
    expect(field(() => parseMerchantId("merchant_id", "acme"))).toBe("merchant_id");
    expect(parseOptionalCityCode("expected_city_code", "")).toBeUndefined();
    expect(parseOptionalCityCode("expected_city_code", "RUH")).toBe("RUH");
    for (const bad of ["ruh", "RUHX", "R1H"]) expect(field(() => parseOptionalCityCode("expected_city_code", bad)), bad).toBe("expected_city_code");
  });
});
