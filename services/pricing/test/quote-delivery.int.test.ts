import { toJson } from "@bufbuild/protobuf";
import { Health, HealthCheckResponse_ServingStatus as Serving } from "@tawsil/proto/grpc/health/v1/health_pb";
import { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import { QuoteDeliveryResponseSchema } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { freePort } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDispatchDatabase, putFleetOnShift, startTestService as startDispatch, type TestService as DispatchTestService } from "../../dispatch/test/support";
import { createMerchantDatabase, startTestService as startMerchant, type TestService as MerchantTestService } from "../../merchant/test/support";
import { carrierCost, marginOf } from "../src/domain/carrier-cost";
import { priceDelivery, type RateCardTerms } from "../src/domain/price";
import { DEFAULT_CIRCUITY_FACTORS, GreatCircleDistance } from "../src/domain/route-distance";
import { Code, failure, startTestService, type TestService } from "./support";

type Coordinate = { latitudeMicro: number; longitudeMicro: number };
type ParcelInit = { totalWeightGrams: bigint; longestSideMm: number; requirements: string[]; cashOnDelivery: boolean };
interface RequestFields {
  merchantId?: string;
  pickup?: Coordinate | undefined;
  destination?: Coordinate | undefined;
  expectedCityCode?: string;
  parcel?: ParcelInit | undefined;
  codAmount?: string;
}

/** Coordinates shared with the gateway's tests: two points in Riyadh, the sea off Jeddah. */
const AL_OLAYA = { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 };
const AL_MALAZ = { latitudeMicro: 24_666_000, longitudeMicro: 46_730_000 };
const RED_SEA = { latitudeMicro: 21_500_000, longitudeMicro: 39_120_000 };
const AL_HAMRA_JEDDAH = { latitudeMicro: 21_514_000, longitudeMicro: 39_168_000 };
const MADINAH_HARAM = { latitudeMicro: 24_467_200, longitudeMicro: 39_611_200 };
const MADINAH_QUBA = { latitudeMicro: 24_439_000, longitudeMicro: 39_617_000 };

const TERMS = {
  baseFee: "15",
  includedKm: "3",
  perKmFee: "1.75",
  includedWeightKg: "5",
  perKgFee: "2",
  codFeePercent: "1.5",
  codFeeMinimum: "5",
  maxCodAmount: "2000",
  requirementSurcharges: [
    { requirement: "FRAGILE", fee: "3.25" },
    { requirement: "COLD_CHAIN", fee: "10" },
  ],
};
const DEFAULT_PARCEL: ParcelInit = { totalWeightGrams: 1000n, longestSideMm: 0, requirements: [], cashOnDelivery: false };

const dbs: { drop(): Promise<void> }[] = [];
let merchant: MerchantTestService;
let dispatch: DispatchTestService;
let dispatchStopped = false;
let dispatchDbUrl = "";
let service: TestService;
let merchantId = "";
let noCardMerchantId = "";
let thinMerchantId = "";
let card: RateCardTerms & { id: string; version: number };

const request = (fields: RequestFields = {}) => ({
  merchantId,
  pickup: AL_OLAYA,
  destination: AL_MALAZ,
  expectedCityCode: "",
  parcel: DEFAULT_PARCEL,
  codAmount: "",
  ...fields,
});

async function createMerchant(code: string, terms?: typeof TERMS): Promise<string> {
  const created = await merchant.admin.createMerchant({ code, displayName: code, legalName: `${code} LLC` });
  if (terms) await merchant.admin.addRateCard({ merchantCode: code, terms });
  return created.merchant?.merchantId ?? "";
}

beforeAll(async () => {
  const adminUrl = inject("databaseAdminUrl");
  const [merchantDb, dispatchDb] = await Promise.all([createMerchantDatabase(adminUrl, "pricing"), createDispatchDatabase(adminUrl, "pricing")]);
  dbs.push(merchantDb, dispatchDb);
  dispatchDbUrl = dispatchDb.url;
  await putFleetOnShift(dispatchDb.url);
  [merchant, dispatch] = await Promise.all([startMerchant(merchantDb.url), startDispatch(dispatchDb.url)]);
  service = await startTestService({ merchantUrl: merchant.url, dispatchDatabaseUrl: dispatchDb.url });

  merchantId = await createMerchant("PRICED", TERMS);
  noCardMerchantId = await createMerchant("NOCARD");
  thinMerchantId = await createMerchant("THIN", { ...TERMS, baseFee: "0.50", perKmFee: "0" });
  const { rateCard } = await merchant.merchant.getCurrentRateCard({ merchantId });
  if (!rateCard) throw new Error("no rate card");
  card = { ...rateCard, id: rateCard.rateCardId, version: rateCard.version };
});

afterAll(async () => {
  await service?.close();
  await Promise.all([merchant?.close(), dispatchStopped ? undefined : dispatch?.close()]);
  await Promise.all(dbs.map((db) => db.drop()));
});

/** The distance and price the pure domain computes for a Riyadh delivery under the card. */
async function expected(from: Coordinate, to: Coordinate, input: { weightGrams?: number; codAmount?: string; requirements?: string[] } = {}) {
  const distanceMetres = await new GreatCircleDistance(DEFAULT_CIRCUITY_FACTORS).metres({ coordinate: from, cityCode: "RUH" }, { coordinate: to, cityCode: "RUH" });
  const price = priceDelivery(card, { distanceMetres, weightGrams: input.weightGrams ?? 1000, codAmount: input.codAmount ?? "0", requirements: input.requirements ?? [] });
  return { distanceMetres, price };
}

describe("PricingService.QuoteDelivery against the real merchant and dispatch services", () => {
  it("prices two Riyadh points exactly as the domain computes under the merchant's rate card", async () => {
    const quote = await service.pricing.quoteDelivery(request({ expectedCityCode: "RUH" }));
    const { distanceMetres, price } = await expected(AL_OLAYA, AL_MALAZ);
    expect(distanceMetres).toBe(6_854);
    expect(price.total.toFixed(2)).toBe("25.00"); // 15 + (6.854 - 3) * 1.75 = 21.7445 -> 21.74; VAT 3.261 -> 3.26
    expect(toJson(QuoteDeliveryResponseSchema, quote)).toEqual({
      distanceMetres: "6854",
      price: { currency: "SAR", amount: "25.00" },
      serviceLevel: "SERVICE_LEVEL_BIKE",
      rateCardId: card.id,
      rateCardVersion: 1,
      pickupContext: { cityCode: "RUH", addressLine: "Al Olaya, Riyadh" },
      destinationContext: { cityCode: "RUH", addressLine: "Al Malaz, Riyadh" },
    });
  });

  it("prices weight, COD and surcharges as the domain does, at the service level dispatch chose", async () => {
    const parcel = { totalWeightGrams: 12_500n, longestSideMm: 600, requirements: ["FRAGILE"], cashOnDelivery: true };
    const quote = await service.pricing.quoteDelivery(request({ destination: AL_OLAYA, pickup: AL_MALAZ, parcel, codAmount: "750.00" }));
    const { price } = await expected(AL_MALAZ, AL_OLAYA, { weightGrams: 12_500, codAmount: "750.00", requirements: ["FRAGILE"] });
    expect(quote.price?.amount).toBe(price.total.toFixed(2));
    expect(quote.serviceLevel).toBe(ServiceLevel.CAR); // 12.5 kg is above a bike's limit
  });

  it("refuses a destination in the Red Sea off Jeddah with OUTSIDE_COVERAGE", async () => {
    expect(await failure(service.pricing.quoteDelivery(request({ pickup: AL_HAMRA_JEDDAH, destination: RED_SEA })))).toMatchObject({
      code: Code.FailedPrecondition,
      reason: "OUTSIDE_COVERAGE",
    });
  });

  it("refuses Riyadh to Jeddah with OUTSIDE_COVERAGE: deliveries are intra-city", async () => {
    expect(await failure(service.pricing.quoteDelivery(request({ destination: AL_HAMRA_JEDDAH, expectedCityCode: "JED" })))).toEqual({
      code: Code.FailedPrecondition,
      reason: "OUTSIDE_COVERAGE",
      message: "pickup and destination are in different cities; deliveries are intra-city",
    });
  });

  it("refuses an expected city that is not the destination's with CITY_MISMATCH", async () => {
    expect(await failure(service.pricing.quoteDelivery(request({ expectedCityCode: "JED" })))).toEqual({
      code: Code.FailedPrecondition,
      reason: "CITY_MISMATCH",
      message: "the destination is in RUH, not JED",
    });
  });

  it("refuses what no active service can carry with NO_ELIGIBLE_SERVICE", async () => {
    const overweight = { ...DEFAULT_PARCEL, totalWeightGrams: 600_000n };
    expect(await failure(service.pricing.quoteDelivery(request({ parcel: overweight })))).toMatchObject({ code: Code.FailedPrecondition, reason: "NO_ELIGIBLE_SERVICE" });
    // Madinah's only active cold-chain service collects no cash.
    const coldCod = { ...DEFAULT_PARCEL, requirements: ["COLD_CHAIN"], cashOnDelivery: true };
    expect(await failure(service.pricing.quoteDelivery(request({ pickup: MADINAH_HARAM, destination: MADINAH_QUBA, parcel: coldCod, codAmount: "100" })))).toMatchObject({
      code: Code.FailedPrecondition,
      reason: "NO_ELIGIBLE_SERVICE",
    });
    const coldPrepaid = { ...DEFAULT_PARCEL, requirements: ["COLD_CHAIN"] };
    const quote = await service.pricing.quoteDelivery(request({ pickup: MADINAH_HARAM, destination: MADINAH_QUBA, parcel: coldPrepaid }));
    expect([quote.serviceLevel, quote.destinationContext?.addressLine]).toEqual([ServiceLevel.COLD_CHAIN_VAN, "Quba, Madinah"]);
  });

  it("passes a merchant without a rate card, or an unknown merchant, on as NO_RATE_CARD", async () => {
    for (const id of [noCardMerchantId, "6f1d2c3b-4a59-4e8f-9d0c-1b2a3c4d5e6f"]) {
      expect(await failure(service.pricing.quoteDelivery(request({ merchantId: id })))).toEqual({
        code: Code.FailedPrecondition,
        reason: "NO_RATE_CARD",
        message: "the merchant has no rate card in force",
      });
    }
  });

  it("refuses COD above the agreed maximum with COD_ABOVE_MAXIMUM", async () => {
    const cod = { ...DEFAULT_PARCEL, cashOnDelivery: true };
    expect(await failure(service.pricing.quoteDelivery(request({ parcel: cod, codAmount: "2000.01" })))).toMatchObject({ code: Code.FailedPrecondition, reason: "COD_ABOVE_MAXIMUM" });
    expect((await service.pricing.quoteDelivery(request({ parcel: cod, codAmount: "2000.00" }))).price?.currency).toBe("SAR");
  });

  it("refuses malformed input with InvalidArgument naming the field", async () => {
    expect(await failure(service.pricing.quoteDelivery(request({ merchantId: "PRICED" })))).toEqual({ code: Code.InvalidArgument, reason: "INVALID_ARGUMENT", message: "merchant_id: must be a uuid" });
    expect(await failure(service.pricing.quoteDelivery(request({ pickup: undefined })))).toMatchObject({ code: Code.InvalidArgument, message: "pickup: is required" });
    expect(await failure(service.pricing.quoteDelivery(request({ destination: { latitudeMicro: 0, longitudeMicro: 180_000_001 } })))).toMatchObject({
      code: Code.InvalidArgument,
      message: "destination.longitude_micro: must be an integer from -180000000 to 180000000",
    });
    expect(await failure(service.pricing.quoteDelivery(request({ parcel: undefined })))).toMatchObject({ code: Code.InvalidArgument, message: "parcel: is required" });
  });

  it("keeps carrier cost and margin out of the response and out of every log line", async () => {
    const lines = [service.logLines, merchant.logLines, dispatch.logLines];
    for (const l of lines) l.length = 0;
    const parcel = { ...DEFAULT_PARCEL, requirements: ["FRAGILE"], cashOnDelivery: true };
    const quote = await service.pricing.quoteDelivery(request({ parcel, codAmount: "300" }));

    const { distanceMetres, price } = await expected(AL_OLAYA, AL_MALAZ, { codAmount: "300", requirements: ["FRAGILE"] });
    const secrets = [carrierCost("BIKE", distanceMetres), marginOf(price.net, "BIKE", distanceMetres)].flatMap((amount) => [amount.toFixed(2), amount.toString()]);
    expect(quote.price?.amount).toBe(price.total.toFixed(2));
    const response = JSON.stringify(toJson(QuoteDeliveryResponseSchema, quote));
    const everything = [response, ...lines.flat()].join("\n");
    expect(service.logLines.join("")).toContain('"message":"delivery quoted"');
    for (const secret of new Set(secrets)) {
      expect(everything, secret).not.toMatch(new RegExp(`(?<![\\d.])${secret.replace(".", "\\.")}(?![\\d])`));
    }
    expect(service.logLines.join("")).not.toMatch(/margin|carrier/i);
  });

  it("counts a quote below carrier cost on /metrics by service level, without the amount", async () => {
    await service.pricing.quoteDelivery(request({ merchantId: thinMerchantId }));
    const metrics = await (await fetch(`${service.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/^pricing_negative_margin_quotes_total\{service_level="BIKE"[^}]*\} 1$/m);
  });

  it("answers the gRPC health protocol for PricingService", async () => {
    const health = createPeerClient(Health, service.url);
    for (const name of ["", "tawsil.pricing.v1.PricingService"]) expect((await health.check({ service: name })).status).toBe(Serving.SERVING);
  });
});

describe("QuoteDelivery when a peer is down", () => {
  it("fails with Unavailable when the merchant service cannot be reached, naming no address", async () => {
    const orphan = await startTestService({ merchantUrl: `http://127.0.0.1:${await freePort()}`, dispatchDatabaseUrl: dispatchDbUrl });
    try {
      expect(await failure(orphan.pricing.quoteDelivery(request()))).toEqual({
        code: Code.Unavailable,
        reason: "DEPENDENCY_UNAVAILABLE",
        message: "the merchant service is unavailable",
      });
    } finally {
      await orphan.close();
    }
  });

  it("keeps quoting once dispatch is stopped, and stays ready: eligibility comes from dispatch's published staffing, not a call", async () => {
    await dispatch.close();
    dispatchStopped = true;
    const { distanceMetres, price } = await expected(AL_OLAYA, AL_MALAZ);
    const quote = await service.pricing.quoteDelivery(request());
    expect([Number(quote.distanceMetres), quote.price?.amount, quote.serviceLevel]).toEqual([distanceMetres, price.total.toFixed(2), ServiceLevel.BIKE]);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  });
});
