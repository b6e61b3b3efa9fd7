import { Writable } from "node:stream";
import { DependencyUnavailableError, FailedPreconditionError, ValidationError } from "@tawsil/errors";
import { createLogger } from "@tawsil/logging";
import { describe, expect, it } from "vitest";
import type { Parcel } from "../domain/parcel";
import type { RateCardTerms } from "../domain/price";
import { GreatCircleDistance, type RouteDistance } from "../domain/route-distance";
import type { ServiceLevel } from "@tawsil/domain";
import { loadCityMap } from "../infra/city-data";
import type { Eligibility, RateCard } from "./ports";
import { QuoteDelivery, type QuoteRequest } from "./quote-delivery";

const TERMS: RateCardTerms = {
  baseFee: "15.00",
  includedKm: "5.000",
  perKmFee: "1.50",
  includedWeightKg: "5.000",
  perKgFee: "2.00",
  codFeePercent: "1.500",
  codFeeMinimum: "5.00",
  maxCodAmount: "500.00",
  requirementSurcharges: [],
};
const CARD: RateCard = { id: "0b7e5d8e-7f53-4c1e-9f7a-2d2f4f1b9c10", version: 3, terms: TERMS };
const REQUEST: QuoteRequest = {
  merchantId: "6f1d2c3b-4a59-4e8f-9d0c-1b2a3c4d5e6f",
  pickup: { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 },
  destination: { latitudeMicro: 24_666_000, longitudeMicro: 46_730_000 },
  expectedCityCode: "",
  parcel: { totalWeightGrams: 1000n, longestSideMm: 0, requirements: [], cashOnDelivery: false },
  codAmount: "",
};
const cities = loadCityMap();
const signal = new AbortController().signal;

interface Fakes {
  eligibility?: () => Promise<Eligibility>;
  rateCard?: () => Promise<RateCard>;
  distance?: RouteDistance;
}

function useCase(fakes: Fakes = {}) {
  const calls: string[] = [];
  const negativeMargins: ServiceLevel[][] = [];
  const lines: string[] = [];
  const destination = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  const quoteDelivery = new QuoteDelivery({
    cities,
    routeDistance: fakes.distance ?? new GreatCircleDistance({ RUH: 1.3, JED: 1.35, DMM: 1.3, MKK: 1.45, MED: 1.3 }),
    rateCards: { current: (merchantId) => (calls.push(`rate card ${merchantId}`), fakes.rateCard?.() ?? Promise.resolve(CARD)) },
    eligibility: {
      check: (city: string, parcel: Parcel) => (calls.push(`eligibility ${city} ${parcel.totalWeightGrams} g`), fakes.eligibility?.() ?? Promise.resolve({ eligible: true, serviceLevel: "CAR" })),
    },
    margins: { negativeMargin: (...args) => negativeMargins.push(args) },
    logger: createLogger({ service: "pricing-test", level: "debug", destination }),
  });
  return { quoteDelivery, calls, negativeMargins, lines };
}

async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error("expected the quote to fail");
}

const rejects = (error: Error) => () => Promise.reject(error);
const noRateCard = new FailedPreconditionError("NO_RATE_CARD", "none");
const down = new DependencyUnavailableError("a peer");

describe("QuoteDelivery", () => {
  it("quotes a covered delivery from the rate card, the service level and the route distance", async () => {
    const { quoteDelivery, calls } = useCase();
    const quote = await quoteDelivery.execute(REQUEST, signal);
    expect(quote).toEqual({
      distanceMetres: 6_854, // 5272.1 m great circle * 1.3
      // 15 + (6.854 - 5) * 1.5 = 17.781 -> 17.78; VAT 2.667 -> 2.67
      price: { currency: "SAR", amount: "20.45" },
      serviceLevel: "CAR",
      rateCardId: CARD.id,
      rateCardVersion: 3,
      pickup: { cityCode: "RUH", addressLine: "Al Olaya, Riyadh" },
      destination: { cityCode: "RUH", addressLine: "Al Malaz, Riyadh" },
    });
    expect(calls.sort()).toEqual(["eligibility RUH 1000 g", `rate card ${REQUEST.merchantId}`]);
  });

  it("asks dispatch, the merchant service and the route model concurrently", async () => {
    const started: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { quoteDelivery } = useCase({
      eligibility: async () => (started.push("eligibility"), await gate, { eligible: true, serviceLevel: "CAR" }),
      rateCard: async () => (started.push("rate card"), await gate, CARD),
      distance: { metres: async () => (started.push("distance"), await gate, 1000) },
    });
    const quote = quoteDelivery.execute(REQUEST, signal);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started.sort()).toEqual(["distance", "eligibility", "rate card"]); // all waiting at once
    release();
    expect((await quote).distanceMetres).toBe(1000);
  });

  it("checks input and coverage before calling any peer", async () => {
    const invalid = useCase();
    expect(await failureOf(invalid.quoteDelivery.execute({ ...REQUEST, merchantId: "acme" }, signal))).toBeInstanceOf(ValidationError);
    expect(await failureOf(invalid.quoteDelivery.execute({ ...REQUEST, pickup: undefined }, signal))).toMatchObject({ field: "pickup" });
    expect(await failureOf(invalid.quoteDelivery.execute({ ...REQUEST, destination: { latitudeMicro: 91_000_000, longitudeMicro: 0 } }, signal))).toMatchObject({
      field: "destination.latitude_micro",
    });
    const sea = { latitudeMicro: 21_500_000, longitudeMicro: 39_120_000 };
    expect(await failureOf(invalid.quoteDelivery.execute({ ...REQUEST, destination: sea }, signal))).toMatchObject({ reason: "OUTSIDE_COVERAGE" });
    expect(await failureOf(invalid.quoteDelivery.execute({ ...REQUEST, expectedCityCode: "JED" }, signal))).toMatchObject({ reason: "CITY_MISMATCH" });
    expect(invalid.calls).toEqual([]);
  });

  it("judges the outcomes in a fixed order: eligibility, rate card, COD maximum, distance", async () => {
    const reasonOf = async (fakes: Fakes, request: QuoteRequest = REQUEST) => ((await failureOf(useCase(fakes).quoteDelivery.execute(request, signal))) as { reason: string }).reason;
    const routingDown: RouteDistance = { metres: () => Promise.reject(down) };
    expect(await reasonOf({ eligibility: async () => ({ eligible: false }), rateCard: rejects(noRateCard), distance: routingDown })).toBe("NO_ELIGIBLE_SERVICE");
    expect(await reasonOf({ eligibility: rejects(down), rateCard: rejects(noRateCard) })).toBe("DEPENDENCY_UNAVAILABLE");
    expect(await reasonOf({ rateCard: rejects(noRateCard), distance: routingDown })).toBe("NO_RATE_CARD");
    const cod = { ...REQUEST, codAmount: "500.01", parcel: { ...REQUEST.parcel!, cashOnDelivery: true } };
    expect(await reasonOf({ distance: routingDown }, cod)).toBe("COD_ABOVE_MAXIMUM");
    expect(await reasonOf({ distance: routingDown })).toBe("DEPENDENCY_UNAVAILABLE");
  });

  it("counts a quote below carrier cost by service level alone, and logs neither cost nor margin", async () => {
    const cheap: RateCard = { ...CARD, terms: { ...TERMS, baseFee: "1.00" } };
    const { quoteDelivery, negativeMargins, lines } = useCase({ rateCard: async () => cheap, eligibility: async () => ({ eligible: true, serviceLevel: "VAN" }) });
    const quote = await quoteDelivery.execute(REQUEST, signal);
    expect(negativeMargins).toEqual([["VAN"]]);
    expect(Object.keys(quote).sort()).toEqual(["destination", "distanceMetres", "pickup", "price", "rateCardId", "rateCardVersion", "serviceLevel"]);
    expect(lines.join("")).toMatch(/"delivery quoted"/);
    expect(lines.join("")).not.toMatch(/margin|carrier|cost/i);
  });
});
