/**
 * The webhook service as another team's stock gRPC client sees it (@grpc/grpc-js, stubs loaded
 * from our .proto files): health, a registration with our metadata and a deadline, and the status,
 * message and typed details (FieldViolations, RotationLimited) of the errors the service produces.
 */
import { randomUUID } from "node:crypto";
import { LIVENESS_SERVICE } from "@tawsil/rpc";
import { callerMetadata, callUnary, errorReason, failureOf, grpcJsClient, GrpcStatus, healthOverGrpcJs, newCaller, UNKNOWN_SERVICE, type GrpcClient } from "@tawsil/testing/grpc-js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SERVICE_NAMES } from "../src/server";
import { createWebhookDatabase, startHarness, type Harness } from "./support";

let db: Awaited<ReturnType<typeof createWebhookDatabase>>;
let harness: Harness;
let webhook: GrpcClient;

beforeAll(async () => {
  db = await createWebhookDatabase(inject("databaseAdminUrl"), "grpcjs");
  harness = await startHarness(db.url, { engine: false });
  webhook = grpcJsClient(harness.service.url, "tawsil/webhook/v1/webhook_service.proto", "tawsil.webhook.v1.WebhookService");
});

afterAll(async () => {
  webhook?.close();
  await harness?.close();
  await db?.drop();
});

const call = (method: string, request: object) => callUnary(webhook, method, request, { metadata: callerMetadata(newCaller()), deadlineMs: 10_000 });

describe("the webhook service, called by grpc-js", () => {
  it("answers the health protocol for the server, liveness and each service it serves, and ends a Watch at the caller's deadline", async () => {
    expect(await healthOverGrpcJs(harness.service.url, ["", LIVENESS_SERVICE, ...SERVICE_NAMES])).toEqual({
      checks: {
        "": "SERVING",
        [LIVENESS_SERVICE]: "SERVING",
        "tawsil.webhook.v1.WebhookService": "SERVING",
        [UNKNOWN_SERVICE]: "NOT_FOUND",
      },
      watch: { messages: [{ status: "SERVING" }], status: "DEADLINE_EXCEEDED" },
    });
  });

  it("registers an endpoint within the caller's deadline and echoes its request id", async () => {
    const caller = newCaller();
    const merchantId = randomUUID();
    const request = { merchantId, url: "http://127.0.0.1:9/hooks", eventTypes: ["EVENT_TYPE_SHIPMENT_DELIVERED"] };
    const { response, headers, status } = await callUnary(webhook, "RegisterEndpoint", request, { metadata: callerMetadata(caller), deadlineMs: 10_000 });
    expect(GrpcStatus[status.code]).toBe("OK");
    expect(response).toMatchObject({ endpoint: { url: request.url, eventTypes: ["EVENT_TYPE_SHIPMENT_DELIVERED"], version: "1" }, signingSecret: expect.stringMatching(/^whsec_/) });
    expect(headers.get("x-request-id")).toEqual([caller.requestId]);
  });

  it("fails as a stock client reads it: status, message, ErrorReason and FieldViolations", async () => {
    expect(failureOf(await call("GetEndpoint", { merchantId: randomUUID() }))).toMatchObject({ status: "NOT_FOUND", details: [errorReason("WEBHOOK_NOT_FOUND")] });
    expect(failureOf(await call("RegisterEndpoint", { merchantId: randomUUID(), url: "ftp://example.com/hooks", eventTypes: [] }))).toEqual({
      status: "INVALID_ARGUMENT",
      message: "url: SCHEME",
      details: [errorReason("VALIDATION_FAILED"), { type: "tawsil.common.v1.FieldViolations", value: { violations: [{ field: "url", code: "UNSUPPORTED_VALUE", params: { rule: "SCHEME" } }] } }],
    });
    const merchantId = randomUUID();
    await call("RegisterEndpoint", { merchantId, url: "http://127.0.0.1:9/hooks", eventTypes: [] });
    expect(failureOf(await call("UpdateEndpoint", { merchantId, expectedVersion: "7", status: "ENDPOINT_STATUS_DISABLED" }))).toEqual({
      status: "ABORTED",
      message: "expected version 7, the endpoint is at 1",
      details: [errorReason("WEBHOOK_VERSION_MISMATCH")],
    });
  });

  it("sends RotationLimited beside its reason once the hourly rotations are spent", async () => {
    const merchantId = randomUUID();
    const versionOf = (outcome: Awaited<ReturnType<typeof call>>) => (outcome.response?.endpoint as { version: string } | undefined)?.version;
    let version = versionOf(await call("RegisterEndpoint", { merchantId, url: "http://127.0.0.1:9/hooks", eventTypes: [] }));
    for (let i = 0; i < 5; i++) {
      const rotated = await call("RotateSecret", { merchantId, expectedVersion: version });
      expect(GrpcStatus[rotated.status.code]).toBe("OK");
      version = versionOf(rotated);
    }
    expect(version).toBe("6");
    expect(failureOf(await call("RotateSecret", { merchantId, expectedVersion: version }))).toEqual({
      status: "FAILED_PRECONDITION",
      message: "at most 5 secret rotations per 3600 s",
      details: [errorReason("WEBHOOK_ROTATION_LIMITED"), { type: "tawsil.webhook.v1.RotationLimited", value: { retryAfterSeconds: expect.any(Number), quota: 5, windowSeconds: 3600, remaining: 0 } }],
    });
  });
});
