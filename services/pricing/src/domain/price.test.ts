import { FailedPreconditionError } from "@tawsil/errors";
import { describe, expect, it } from "vitest";
import { priceDelivery, type PriceInput, type RateCardTerms } from "./price";

const TERMS: RateCardTerms = {
  baseFee: "15.00",
  includedKm: "10.000",
  perKmFee: "1.50",
  includedWeightKg: "5.000",
  perKgFee: "2.00",
  codFeePercent: "1.500",
  codFeeMinimum: "5.00",
  maxCodAmount: "5000.00",
  requirementSurcharges: [
    { requirement: "COLD_CHAIN", fee: "10.00" },
    { requirement: "FRAGILE", fee: "3.25" },
  ],
};
const PLAIN: PriceInput = { distanceMetres: 0, weightGrams: 1000, codAmount: "0", requirements: [] };

const total = (terms: RateCardTerms, input: Partial<PriceInput>) => priceDelivery(terms, { ...PLAIN, ...input }).total.toFixed(2);
const cheap = (fields: Partial<RateCardTerms>): RateCardTerms => ({
  ...TERMS,
  baseFee: "0",
  includedKm: "0",
  perKmFee: "0",
  includedWeightKg: "0",
  perKgFee: "0",
  requirementSurcharges: [],
  ...fields,
});

describe("priceDelivery", () => {
  it("charges the base fee alone within the included distance and weight, plus 15 % VAT", () => {
    const price = priceDelivery(TERMS, { ...PLAIN, distanceMetres: 10_000, weightGrams: 5_000 });
    expect([price.net.toFixed(2), price.vat.toFixed(2), price.total.toFixed(2)]).toEqual(["15.00", "2.25", "17.25"]);
  });

  it("adds every component: distance beyond included km, weight beyond included kg, COD fee and requested surcharges", () => {
    // 15 + (12.345 - 10) * 1.5 + (7.5 - 5) * 2 + max(1000 * 1.5 %, 5) + 10 = 15 + 3.5175 + 5 + 15 + 10 = 48.5175
    const price = priceDelivery(TERMS, { distanceMetres: 12_345, weightGrams: 7_500, codAmount: "1000", requirements: ["COLD_CHAIN"] });
    expect(price.net.toFixed(2)).toBe("48.52");
    expect(price.vat.toFixed(2)).toBe("7.28"); // 48.52 * 0.15 = 7.278
    expect(price.total.toFixed(2)).toBe("55.80");
  });

  it("rounds the VAT-exclusive amount half up to halalas before VAT, and VAT half up again", () => {
    // 1 km at 10.125: net 10.125 -> 10.13 (half-even would give 10.12); VAT 1.5195 -> 1.52
    expect(priceDelivery(cheap({ perKmFee: "10.125" }), { ...PLAIN, distanceMetres: 1000 }).net.toFixed(2)).toBe("10.13");
    expect(total(cheap({ perKmFee: "10.125" }), { distanceMetres: 1000 })).toBe("11.65");
    // net 10.70: VAT 1.605 -> 1.61 (half-even would give 1.60)
    const tie = priceDelivery(cheap({ baseFee: "10.70" }), PLAIN);
    expect([tie.vat.toFixed(2), tie.total.toFixed(2)]).toEqual(["1.61", "12.31"]);
    // just under the tie rounds down: 10.124999 -> 10.12
    expect(priceDelivery(cheap({ perKmFee: "0.001" }), { ...PLAIN, distanceMetres: 10_124_999 }).net.toFixed(2)).toBe("10.12");
    // net + VAT is the total, exactly
    const any = priceDelivery(TERMS, { ...PLAIN, distanceMetres: 13_333 });
    expect(any.net.plus(any.vat).equals(any.total)).toBe(true);
  });

  it("never suffers binary floating point: 0.1 + 0.2 SAR is 0.30 net", () => {
    const price = priceDelivery(cheap({ baseFee: "0.10", requirementSurcharges: [{ requirement: "FRAGILE", fee: "0.20" }] }), { ...PLAIN, requirements: ["FRAGILE"] });
    expect(price.net.toString()).toBe("0.3");
    expect(price.total.toFixed(2)).toBe("0.35"); // 0.045 VAT rounds half up to 0.05
  });

  it("VAT is 15 % of round amounts exactly", () => {
    expect(total(cheap({ baseFee: "100" }), {})).toBe("115.00");
    expect(total(cheap({ baseFee: "0" }), {})).toBe("0.00");
    expect(total(cheap({ baseFee: "9999999999.99" }), {})).toBe("11499999999.99"); // VAT 1499999999.9985 rounds up to 1500000000.00
  });

  it("is non-decreasing in distance, every 7 m to 30 km across fee boundaries, for several cards", () => {
    const cards = [TERMS, cheap({ perKmFee: "0.333" }), cheap({ baseFee: "7.77", includedKm: "2.5", perKmFee: "1.99" })];
    const decreases: string[] = [];
    for (const card of cards) {
      let previous = priceDelivery(card, PLAIN).total;
      for (let metres = 1; metres <= 30_000; metres += 7) {
        const current = priceDelivery(card, { ...PLAIN, distanceMetres: metres }).total;
        if (current.lessThan(previous)) decreases.push(`${metres} m: ${previous.toFixed(2)} -> ${current.toFixed(2)}`);
        previous = current;
      }
    }
    expect(decreases).toEqual([]);
  });

  it("is non-decreasing in weight, every 11 g to 40 kg across fee boundaries, for several cards", () => {
    const cards = [TERMS, cheap({ perKgFee: "0.777" }), cheap({ includedWeightKg: "0.5", perKgFee: "3.333" })];
    const decreases: string[] = [];
    for (const card of cards) {
      let previous = priceDelivery(card, { ...PLAIN, weightGrams: 1 }).total;
      for (let grams = 2; grams <= 40_000; grams += 11) {
        const current = priceDelivery(card, { ...PLAIN, weightGrams: grams }).total;
        if (current.lessThan(previous)) decreases.push(`${grams} g: ${previous.toFixed(2)} -> ${current.toFixed(2)}`);
        previous = current;
      }
    }
    expect(decreases).toEqual([]);
  });

  it("charges the COD minimum below it, the percentage above it, nothing for prepaid", () => {
    const cod = (codAmount: string) => priceDelivery(cheap({ codFeePercent: "1.500", codFeeMinimum: "5.00" }), { ...PLAIN, codAmount }).net.toFixed(2);
    expect(cod("0")).toBe("0.00");
    expect(cod("100")).toBe("5.00"); // 1.50 < 5.00
    expect(cod("333.33")).toBe("5.00"); // exactly 4.99995 -> the minimum applies before any rounding
    expect(cod("333.34")).toBe("5.00"); // 5.0001 -> 5.00 after rounding
    expect(cod("1000")).toBe("15.00");
    expect(cod("1234.56")).toBe("18.52"); // 18.5184
  });

  it("accepts COD up to the agreed maximum and refuses more with COD_ABOVE_MAXIMUM", () => {
    expect(total(TERMS, { codAmount: "5000.00" })).toBe("103.50"); // (15 + 75) * 1.15
    let error: unknown;
    try {
      priceDelivery(TERMS, { ...PLAIN, codAmount: "5000.01" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FailedPreconditionError);
    expect(error).toMatchObject({ reason: "COD_ABOVE_MAXIMUM" });
  });

  it("adds the surcharges of the requested requirements only; one without a surcharge costs nothing", () => {
    expect(priceDelivery(TERMS, { ...PLAIN, requirements: ["FRAGILE"] }).net.toFixed(2)).toBe("18.25");
    expect(priceDelivery(TERMS, { ...PLAIN, requirements: ["FRAGILE", "COLD_CHAIN"] }).net.toFixed(2)).toBe("28.25");
    expect(priceDelivery(TERMS, { ...PLAIN, requirements: ["SIGNATURE_ON_DELIVERY"] }).net.toFixed(2)).toBe("15.00");
  });

  it("charges fractional kilometres and kilograms exactly, from the whole metres and grams given", () => {
    expect(priceDelivery(cheap({ perKmFee: "1.00" }), { ...PLAIN, distanceMetres: 1 }).net.toFixed(3)).toBe("0.000"); // 0.001 -> 0.00
    expect(priceDelivery(cheap({ perKmFee: "1.00" }), { ...PLAIN, distanceMetres: 5 }).net.toFixed(2)).toBe("0.01"); // 0.005 -> 0.01
    expect(priceDelivery(cheap({ perKgFee: "2.00" }), { ...PLAIN, weightGrams: 1_250 }).net.toFixed(2)).toBe("2.50");
  });
});
