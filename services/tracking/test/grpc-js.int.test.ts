/**
 * The tracking service as another team's stock gRPC client sees it (@grpc/grpc-js, stubs loaded
 * from our .proto files), on its own database with the real shipment service (and its peers)
 * behind the fallback: health, a read with our metadata and a deadline, and the status, message
 * and ErrorReason of each kind of error it produces, the shipment service down included.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type InProcessService, LIVENESS_SERVICE } from "@tawsil/rpc";
import { capturedLogger, createMigratedDatabase, freePort, type TestDatabase } from "@tawsil/testing";
import { callerMetadata, callUnary, errorReason, failureOf, grpcJsClient, GrpcStatus, healthOverGrpcJs, newCaller, UNKNOWN_SERVICE, type GrpcClient } from "@tawsil/testing/grpc-js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { draft, idempotency, startStack, type Stack } from "../../shipment/test/support";
import { readConfig } from "../src/config";
import { SERVICE_NAMES, startTrackingService } from "../src/server";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "prisma", "migrations");

let shipments: Stack;
let database: TestDatabase;
let tracking: InProcessService;
let client: GrpcClient;
let merchantId = "";
let otherMerchantId = "";
let shipmentId = "";

/** The tracking service on `database`, its fallback on the shipment service at `shipmentUrl`. */
function startTracking(shipmentUrl: string): Promise<InProcessService> {
  const config = readConfig({ HOST: "127.0.0.1", PORT: "0", DATABASE_URL: database.url, KAFKA_BROKERS: "127.0.0.1:9092", SHIPMENT_SERVICE_URL: shipmentUrl, SHUTDOWN_GRACE_MS: "100" });
  return startTrackingService(config, capturedLogger("tracking-test").logger);
}

beforeAll(async () => {
  shipments = await startStack(inject("databaseAdminUrl"), "tracking_grpcjs");
  database = await createMigratedDatabase(inject("databaseAdminUrl"), `tracking_test_grpcjs_${randomUUID().slice(0, 8)}`, MIGRATIONS);
  tracking = await startTracking(shipments.shipment.url);
  [merchantId, otherMerchantId] = await Promise.all([shipments.newMerchant("ACME"), shipments.newMerchant("OTHER")]);
  const body = draft("ORDER-TRACKED");
  const created = await shipments.client.createShipment({ merchantId, idempotency: idempotency("grpcjs-tracked-0001", body), draft: body });
  shipmentId = created.shipment?.shipmentId ?? "";
  client = grpcJsClient(tracking.url, "tawsil/tracking/v1/tracking_service.proto", "tawsil.tracking.v1.TrackingService");
});

afterAll(async () => {
  client?.close();
  await tracking?.close();
  await shipments?.close();
  await database?.drop();
});

const call = (method: string, request: object, on = client) => callUnary(on, method, request, { metadata: callerMetadata(newCaller()), deadlineMs: 10_000 });

describe("the tracking service, called by grpc-js", () => {
  it("answers the health protocol for the server, liveness and each service it serves, and ends a Watch at the caller's deadline", async () => {
    expect(await healthOverGrpcJs(tracking.url, ["", LIVENESS_SERVICE, ...SERVICE_NAMES])).toEqual({
      checks: {
        "": "SERVING",
        [LIVENESS_SERVICE]: "SERVING",
        "tawsil.tracking.v1.TrackingService": "SERVING",
        [UNKNOWN_SERVICE]: "NOT_FOUND",
      },
      watch: { messages: [{ status: "SERVING" }], status: "DEADLINE_EXCEEDED" },
    });
  });

  it("answers GetShipmentTracking within the caller's deadline (from the shipment service: no event projected yet) and echoes its request id", async () => {
    const caller = newCaller();
    const { response, headers, status } = await callUnary(client, "GetShipmentTracking", { merchantId, shipmentId }, { metadata: callerMetadata(caller), deadlineMs: 10_000 });
    expect(GrpcStatus[status.code]).toBe("OK");
    expect(response).toMatchObject({ shipmentId, lifecycleState: "SHIPMENT_STATE_READY_FOR_DISPATCH", locationStatus: "LOCATION_STATUS_NOT_ASSIGNED" });
    expect(headers.get("x-request-id")).toEqual([caller.requestId]);
  });

  it("fails as a stock client reads it: status, message and ErrorReason for each kind of error", async () => {
    expect(failureOf(await call("GetShipmentTracking", { merchantId, shipmentId: "not-a-uuid" }))).toEqual({ status: "INVALID_ARGUMENT", message: "shipment_id: must be a uuid", details: [errorReason("INVALID_ARGUMENT")] });
    expect(failureOf(await call("GetShipmentTracking", { merchantId, shipmentId: randomUUID() }))).toMatchObject({ status: "NOT_FOUND", details: [errorReason("SHIPMENT_NOT_FOUND")] });
    expect(failureOf(await call("GetShipmentTracking", { merchantId: otherMerchantId, shipmentId }))).toEqual({
      status: "PERMISSION_DENIED",
      message: "the shipment belongs to another merchant",
      details: [errorReason("ACCESS_DENIED")],
    });
    expect(failureOf(await call("GetPublicTracking", { code: "A".repeat(43) }))).toMatchObject({ status: "NOT_FOUND", details: [errorReason("TRACKING_LINK_NOT_FOUND")] });
  });

  it("fails with UNAVAILABLE when the shipment service behind the fallback cannot be reached, naming no address", async () => {
    const orphan = await startTracking(`http://127.0.0.1:${await freePort()}`);
    const orphanClient = grpcJsClient(orphan.url, "tawsil/tracking/v1/tracking_service.proto", "tawsil.tracking.v1.TrackingService");
    try {
      expect(failureOf(await call("GetShipmentTracking", { merchantId, shipmentId: randomUUID() }, orphanClient))).toEqual({
        status: "UNAVAILABLE",
        message: "the shipment service is unavailable",
        details: [errorReason("DEPENDENCY_UNAVAILABLE")],
      });
    } finally {
      orphanClient.close();
      await orphan.close();
    }
  });
});
