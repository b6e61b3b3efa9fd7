import { describe, expect, it } from "vitest";
import { parseRateCardTerms, type RateCardTermsInput } from "./rate-card";

const input: RateCardTermsInput = {
  baseFee: "15",
  includedKm: "10",
  perKmFee: "1.5",
  includedWeightKg: "5.25",
  perKgFee: "2.00",
  codFeePercent: "1.5",
  codFeeMinimum: "5",
  maxCodAmount: "5000",
  requirementSurcharges: [{ requirement: "COLD_CHAIN", fee: "10" }],
};

describe("rate card terms", () => {
  it("normalizes every amount to its column's scale", () => {
    expect(parseRateCardTerms("terms", input)).toEqual({
      baseFee: "15.00",
      includedKm: "10.000",
      perKmFee: "1.50",
      includedWeightKg: "5.250",
      perKgFee: "2.00",
      codFeePercent: "1.500",
      codFeeMinimum: "5.00",
      maxCodAmount: "5000.00",
      requirementSurcharges: [{ requirement: "COLD_CHAIN", fee: "10.00" }],
    });
  });

  it.each([
    [{ baseFee: "" }, "terms.base_fee"],
    [{ baseFee: "-1" }, "terms.base_fee"],
    [{ baseFee: "1.005" }, "terms.base_fee"],
    [{ baseFee: "12345678901" }, "terms.base_fee"],
    [{ includedKm: "1000" }, "terms.included_km"],
    [{ perKmFee: "1e3" }, "terms.per_km_fee"],
    [{ codFeePercent: "100.001" }, "terms.cod_fee_percent"],
    [{ maxCodAmount: "01" }, "terms.max_cod_amount"],
    [{ requirementSurcharges: [{ requirement: "TELEPORT", fee: "1" }] }, "terms.requirement_surcharges[0].requirement"],
    [{ requirementSurcharges: [{ requirement: "FRAGILE", fee: "1" }, { requirement: "FRAGILE", fee: "2" }] }, "terms.requirement_surcharges[1].requirement"],
    [{ requirementSurcharges: [{ requirement: "FRAGILE", fee: "x" }] }, "terms.requirement_surcharges[0].fee"],
  ])("rejects %j naming %s", (change, field) => {
    expect(() => parseRateCardTerms("terms", { ...input, ...change })).toThrow(`${field}:`);
  });

  it("requires the terms", () => {
    expect(() => parseRateCardTerms("terms", undefined)).toThrow("terms: is required");
  });
});
