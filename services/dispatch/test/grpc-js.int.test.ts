/**
 * The dispatch service as another team's stock gRPC client sees it (@grpc/grpc-js, stubs loaded
 * from our .proto files): health, a representative call with our metadata and a deadline, and the
 * status, message and typed details of the errors the service produces.
 */
import { randomUUID } from "node:crypto";
import { LIVENESS_SERVICE } from "@tawsil/rpc";
import { callerMetadata, callUnary, errorReason, failureOf, grpcJsClient, GrpcStatus, healthOverGrpcJs, newCaller, UNKNOWN_SERVICE, type GrpcClient } from "@tawsil/testing/grpc-js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SERVICE_NAMES } from "../src/server";
import { createDispatchDatabase, putFleetOnShift, startTestService, type TestService } from "./support";

const PARCEL = { totalWeightGrams: "2000", longestSideMm: 300, requirements: [], cashOnDelivery: true };

let db: Awaited<ReturnType<typeof createDispatchDatabase>>;
let service: TestService;
let dispatch: GrpcClient;
let drivers: GrpcClient;

beforeAll(async () => {
  db = await createDispatchDatabase(inject("databaseAdminUrl"), "grpcjs");
  await putFleetOnShift(db.url);
  service = await startTestService(db.url);
  dispatch = grpcJsClient(service.url, "tawsil/dispatch/v1/dispatch_service.proto", "tawsil.dispatch.v1.DispatchService");
  drivers = grpcJsClient(service.url, "tawsil/dispatch/v1/driver_service.proto", "tawsil.dispatch.v1.DriverService");
});

afterAll(async () => {
  dispatch?.close();
  drivers?.close();
  await service?.close();
  await db?.drop();
});

describe("the dispatch service, called by grpc-js", () => {
  it("answers the health protocol for the server, liveness and each service it serves, and ends a Watch at the caller's deadline", async () => {
    expect(await healthOverGrpcJs(service.url, ["", LIVENESS_SERVICE, ...SERVICE_NAMES])).toEqual({
      checks: {
        "": "SERVING",
        [LIVENESS_SERVICE]: "SERVING",
        "tawsil.dispatch.v1.DispatchService": "SERVING",
        "tawsil.dispatch.v1.DriverService": "SERVING",
        [UNKNOWN_SERVICE]: "NOT_FOUND",
      },
      watch: { messages: [{ status: "SERVING" }], status: "DEADLINE_EXCEEDED" },
    });
  });

  it("answers CheckEligibility within the caller's deadline and echoes its request id", async () => {
    const caller = newCaller();
    const { response, headers, status } = await callUnary(dispatch, "CheckEligibility", { cityCode: "RUH", parcel: PARCEL }, { metadata: callerMetadata(caller), deadlineMs: 10_000 });
    expect(GrpcStatus[status.code]).toBe("OK");
    expect(response).toEqual({ eligible: true, serviceLevel: "SERVICE_LEVEL_BIKE" });
    expect(headers.get("x-request-id")).toEqual([caller.requestId]);
  });

  it("fails as a stock client reads it: status, message and ErrorReason", async () => {
    const call = (client: GrpcClient, method: string, request: object) => callUnary(client, method, request, { metadata: callerMetadata(newCaller()), deadlineMs: 10_000 }).then(failureOf);
    expect(await call(dispatch, "CheckEligibility", { cityCode: "riyadh", parcel: PARCEL })).toEqual({
      status: "INVALID_ARGUMENT",
      message: "city_code: must be three capital letters, for example RUH",
      details: [errorReason("INVALID_ARGUMENT")],
    });
    const position = { latitudeMicro: 24_690_000, longitudeMicro: 46_685_000 };
    expect(await call(drivers, "ReportLocations", { driverId: randomUUID(), fixes: [{ position, accuracyMetres: 5, recordTimeUnixMs: "0" }] })).toMatchObject({
      status: "NOT_FOUND",
      details: [errorReason("DRIVER_NOT_FOUND")],
    });
  });
});
