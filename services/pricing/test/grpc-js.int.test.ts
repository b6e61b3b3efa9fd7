/**
 * The pricing service as another team's stock gRPC client sees it (@grpc/grpc-js, stubs loaded
 * from our .proto files): health, a quote with our metadata and a deadline (its trace reaching
 * pricing's log), and the status, message and typed details of the errors the service produces,
 * a peer that is down included.
 */
import { initTracing } from "@tawsil/logging";
import { LIVENESS_SERVICE } from "@tawsil/rpc";
import { freePort } from "@tawsil/testing";
import { callerMetadata, callUnary, errorReason, failureOf, grpcJsClient, GrpcStatus, healthOverGrpcJs, newCaller, UNKNOWN_SERVICE, type GrpcClient } from "@tawsil/testing/grpc-js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDispatchDatabase, putFleetOnShift, startTestService as startDispatch, type TestService as DispatchTestService } from "../../dispatch/test/support";
import { createMerchantDatabase, startTestService as startMerchant, type TestService as MerchantTestService } from "../../merchant/test/support";
import { SERVICE_NAMES } from "../src/server";
import { startTestService, type TestService } from "./support";

initTracing(); // as every process's main does (runMain): W3C propagation, trace ids in log lines

const AL_OLAYA = { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 };
const AL_MALAZ = { latitudeMicro: 24_666_000, longitudeMicro: 46_730_000 };
const AL_HAMRA_JEDDAH = { latitudeMicro: 21_514_000, longitudeMicro: 39_168_000 };
const TERMS = {
  baseFee: "15", includedKm: "3", perKmFee: "1.75", includedWeightKg: "5", perKgFee: "2",
  codFeePercent: "1.5", codFeeMinimum: "5", maxCodAmount: "2000", requirementSurcharges: [],
};

const dbs: { drop(): Promise<void> }[] = [];
let merchant: MerchantTestService;
let dispatch: DispatchTestService;
let dispatchDbUrl = "";
let service: TestService;
let pricing: GrpcClient;
let merchantId = "";

/** A quote request as a stock client writes it: camelCase fields, int64 as a decimal string. */
const request = (fields: object = {}) => ({
  merchantId,
  pickup: AL_OLAYA,
  destination: AL_MALAZ,
  parcel: { totalWeightGrams: "1000", longestSideMm: 0, requirements: [], cashOnDelivery: false },
  ...fields,
});

beforeAll(async () => {
  const adminUrl = inject("databaseAdminUrl");
  const [merchantDb, dispatchDb] = await Promise.all([createMerchantDatabase(adminUrl, "pricing_grpcjs"), createDispatchDatabase(adminUrl, "pricing_grpcjs")]);
  dbs.push(merchantDb, dispatchDb);
  dispatchDbUrl = dispatchDb.url;
  await putFleetOnShift(dispatchDb.url);
  [merchant, dispatch] = await Promise.all([startMerchant(merchantDb.url), startDispatch(dispatchDb.url)]);
  service = await startTestService({ merchantUrl: merchant.url, dispatchDatabaseUrl: dispatchDb.url });
  merchantId = (await merchant.admin.createMerchant({ code: "PRICED", displayName: "Priced", legalName: "Priced LLC" })).merchant?.merchantId ?? "";
  await merchant.admin.addRateCard({ merchantCode: "PRICED", terms: TERMS });
  pricing = grpcJsClient(service.url, "tawsil/pricing/v1/pricing_service.proto", "tawsil.pricing.v1.PricingService");
});

afterAll(async () => {
  pricing?.close();
  await service?.close();
  await Promise.all([merchant?.close(), dispatch?.close()]);
  await Promise.all(dbs.map((db) => db.drop()));
});

describe("the pricing service, called by grpc-js", () => {
  it("answers the health protocol for the server, liveness and each service it serves, and ends a Watch at the caller's deadline", async () => {
    expect(await healthOverGrpcJs(service.url, ["", LIVENESS_SERVICE, ...SERVICE_NAMES])).toEqual({
      checks: {
        "": "SERVING",
        [LIVENESS_SERVICE]: "SERVING",
        "tawsil.pricing.v1.PricingService": "SERVING",
        [UNKNOWN_SERVICE]: "NOT_FOUND",
      },
      watch: { messages: [{ status: "SERVING" }], status: "DEADLINE_EXCEEDED" },
    });
  });

  it("quotes within the caller's deadline, echoes its request id and logs under its trace", async () => {
    const caller = newCaller();
    const { response, headers, status } = await callUnary(pricing, "QuoteDelivery", request(), { metadata: callerMetadata(caller), deadlineMs: 10_000 });
    expect(GrpcStatus[status.code]).toBe("OK");
    expect(response).toMatchObject({ serviceLevel: "SERVICE_LEVEL_BIKE", price: { currency: "SAR" }, destinationContext: { cityCode: "RUH" } });
    expect(headers.get("x-request-id")).toEqual([caller.requestId]);
    const quoted = service.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === "delivery quoted");
    expect(quoted.map((line) => line.traceId)).toContain(caller.traceId);
  });

  it("fails as a stock client reads it: status, message (reserved characters intact) and ErrorReason", async () => {
    const call = (fields: object, client = pricing) => callUnary(client, "QuoteDelivery", request(fields), { metadata: callerMetadata(newCaller()), deadlineMs: 10_000 }).then(failureOf);
    expect(await call({ destination: AL_HAMRA_JEDDAH })).toEqual({
      status: "FAILED_PRECONDITION",
      message: "pickup and destination are in different cities; deliveries are intra-city",
      details: [errorReason("OUTSIDE_COVERAGE")],
    });
    expect(await call({ merchantId: "6f1d2c3b-4a59-4e8f-9d0c-1b2a3c4d5e6f" })).toEqual({
      status: "FAILED_PRECONDITION",
      message: "the merchant has no rate card in force",
      details: [errorReason("NO_RATE_CARD")],
    });
    expect(await call({ merchantId: "PRICED" })).toEqual({ status: "INVALID_ARGUMENT", message: "merchant_id: must be a uuid", details: [errorReason("INVALID_ARGUMENT")] });
  });

  it("fails with UNAVAILABLE when the merchant service cannot be reached, naming no address", async () => {
    const orphan = await startTestService({ merchantUrl: `http://127.0.0.1:${await freePort()}`, dispatchDatabaseUrl: dispatchDbUrl });
    const client = grpcJsClient(orphan.url, "tawsil/pricing/v1/pricing_service.proto", "tawsil.pricing.v1.PricingService");
    try {
      const outcome = await callUnary(client, "QuoteDelivery", request(), { metadata: callerMetadata(newCaller()), deadlineMs: 10_000 });
      expect(failureOf(outcome)).toEqual({ status: "UNAVAILABLE", message: "the merchant service is unavailable", details: [errorReason("DEPENDENCY_UNAVAILABLE")] });
    } finally {
      client.close();
      await orphan.close();
    }
  });
});
