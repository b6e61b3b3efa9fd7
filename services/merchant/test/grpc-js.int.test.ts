/**
 * The merchant service as another team's stock gRPC client sees it (@grpc/grpc-js, stubs loaded
 * from our .proto files): health, a representative call with our metadata and a deadline, and the
 * status, message and typed details of each error the service produces.
 */
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import { LIVENESS_SERVICE } from "@tawsil/rpc";
import { callerMetadata, callUnary, errorReason, failureOf, grpcJsClient, GrpcStatus, healthOverGrpcJs, newCaller, UNKNOWN_SERVICE, type GrpcClient } from "@tawsil/testing/grpc-js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ADMIN_SERVICE_NAMES, SERVICE_NAMES } from "../src/server";
import { createMerchantDatabase, startTestService, type TestService } from "./support";

let db: { url: string; drop(): Promise<void> };
let service: TestService;
let merchant: GrpcClient;
let admin: GrpcClient;
let merchantId = "";

beforeAll(async () => {
  db = await createMerchantDatabase(inject("databaseAdminUrl"), "grpcjs");
  service = await startTestService(db.url);
  merchantId = (await service.admin.createMerchant({ code: "ACME", displayName: "Acme", legalName: "Acme Trading" })).merchant?.merchantId ?? "";
  await service.admin.createMerchant({ code: "GONE", displayName: "Gone", legalName: "Gone Trading" });
  await service.admin.setMerchantStatus({ merchantCode: "GONE", status: MerchantStatus.TERMINATED });
  merchant = grpcJsClient(service.url, "tawsil/merchant/v1/merchant_service.proto", "tawsil.merchant.v1.MerchantService");
  admin = grpcJsClient(service.adminUrl!, "tawsil/merchant/v1/merchant_admin_service.proto", "tawsil.merchant.v1.MerchantAdminService");
});

afterAll(async () => {
  merchant?.close();
  admin?.close();
  await service?.close();
  await db?.drop();
});

describe("the merchant service, called by grpc-js", () => {
  it("answers the health protocol for the server, liveness and each service it serves, and ends a Watch at the caller's deadline", async () => {
    // The admin service answers on the admin listener only: on the service port it is unknown.
    expect(await healthOverGrpcJs(service.url, ["", LIVENESS_SERVICE, ...SERVICE_NAMES, ...ADMIN_SERVICE_NAMES])).toEqual({
      checks: {
        "": "SERVING",
        [LIVENESS_SERVICE]: "SERVING",
        "tawsil.merchant.v1.MerchantService": "SERVING",
        "tawsil.merchant.v1.MerchantAdminService": "NOT_FOUND",
        [UNKNOWN_SERVICE]: "NOT_FOUND",
      },
      watch: { messages: [{ status: "SERVING" }], status: "DEADLINE_EXCEEDED" },
    });
    expect((await healthOverGrpcJs(service.adminUrl!, ["", ...ADMIN_SERVICE_NAMES])).checks).toMatchObject({ "": "SERVING", "tawsil.merchant.v1.MerchantAdminService": "SERVING" });
  });

  it("answers GetMerchant within the caller's deadline and echoes its request id", async () => {
    const caller = newCaller();
    const { response, headers, status } = await callUnary(merchant, "GetMerchant", { merchantId }, { metadata: callerMetadata(caller), deadlineMs: 10_000 });
    expect(GrpcStatus[status.code]).toBe("OK");
    expect(response).toMatchObject({ merchant: { merchantId, code: "ACME", displayName: "Acme", status: "MERCHANT_STATUS_DRAFT" } });
    expect(headers.get("x-request-id")).toEqual([caller.requestId]);
  });

  it("fails as a stock client reads it: status, message and ErrorReason for each kind of error", async () => {
    const call = (client: GrpcClient, method: string, request: object) => callUnary(client, method, request, { metadata: callerMetadata(newCaller()), deadlineMs: 10_000 }).then(failureOf);
    expect(await call(merchant, "GetMerchant", { merchantId: "6f1d2c3b-4a59-4e8f-9d0c-1b2a3c4d5e6f" })).toMatchObject({ status: "NOT_FOUND", details: [errorReason("MERCHANT_NOT_FOUND")] });
    expect(await call(admin, "AddBranch", { merchantCode: "ACME", code: "-B", name: "x" })).toEqual({
      status: "INVALID_ARGUMENT",
      message: "code: must match ^[A-Z0-9][A-Z0-9_-]{1,63}$",
      details: [errorReason("INVALID_ARGUMENT")],
    });
    expect(await call(admin, "CreateMerchant", { code: "ACME", displayName: "Again", legalName: "Again" })).toEqual({
      status: "ALREADY_EXISTS",
      message: "merchant ACME already exists",
      details: [errorReason("MERCHANT_ALREADY_EXISTS")],
    });
    expect(await call(admin, "SetMerchantStatus", { merchantCode: "GONE", status: "MERCHANT_STATUS_ACTIVE" })).toEqual({
      status: "FAILED_PRECONDITION",
      message: "a merchant cannot move from TERMINATED to ACTIVE",
      details: [errorReason("INVALID_STATUS_TRANSITION")],
    });
    expect(await call(merchant, "IssueAccessToken", { clientId: "tws_ci_unknown", clientSecret: "not-the-secret", scopes: [] })).toEqual({
      status: "UNAUTHENTICATED",
      message: "client authentication failed",
      details: [errorReason("INVALID_CLIENT")],
    });
  });
});
