/**
 * The shipment service as another team's stock gRPC client sees it (@grpc/grpc-js, stubs loaded
 * from our .proto files), on the real merchant, pricing and dispatch services: health, a create
 * with our metadata and a deadline, and the status, message and typed details of each kind of
 * error the service produces.
 */
import { randomUUID } from "node:crypto";
import { LIVENESS_SERVICE } from "@tawsil/rpc";
import { callerMetadata, callUnary, errorReason, failureOf, grpcJsClient, GrpcStatus, healthOverGrpcJs, newCaller, UNKNOWN_SERVICE, type GrpcClient } from "@tawsil/testing/grpc-js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ADMIN_SERVICE_NAMES, SERVICE_NAMES } from "../src/server";
import { AL_MALAZ, fingerprint, startStack, type Stack } from "./support";

let stack: Stack;
let shipments: GrpcClient;
let admin: GrpcClient;
let merchantId = "";
let otherMerchantId = "";

beforeAll(async () => {
  stack = await startStack(inject("databaseAdminUrl"), "grpcjs");
  [merchantId, otherMerchantId] = await Promise.all([stack.newMerchant("ACME"), stack.newMerchant("OTHER")]);
  shipments = grpcJsClient(stack.shipment.url, "tawsil/shipment/v1/shipment_service.proto", "tawsil.shipment.v1.ShipmentService");
  admin = grpcJsClient(stack.shipment.adminUrl!, "tawsil/shipment/v1/shipment_admin_service.proto", "tawsil.shipment.v1.ShipmentAdminService");
});

afterAll(async () => {
  shipments?.close();
  admin?.close();
  await stack?.close();
});

/** A draft as a stock client writes it: camelCase fields, a oneof's member set directly. */
const draft = (reference: string, fields: object = {}) => ({
  externalReference: reference,
  savedLocationCode: "WAREHOUSE-1",
  recipientName: "Sara Al-Harbi",
  recipientPhone: "+966512345678",
  destination: AL_MALAZ,
  items: [{ description: "Shoes", quantity: 2, weightKilograms: "0.750" }],
  ...fields,
});

const create = (key: string, body: object, merchant = merchantId, caller = newCaller()) =>
  callUnary(shipments, "CreateShipment", { merchantId: merchant, idempotency: { key, clientId: "client-1", fingerprint: fingerprint(body) }, draft: body }, { metadata: callerMetadata(caller), deadlineMs: 10_000 });
const call = (client: GrpcClient, method: string, request: object) => callUnary(client, method, request, { metadata: callerMetadata(newCaller()), deadlineMs: 10_000 });

describe("the shipment service, called by grpc-js", () => {
  it("answers the health protocol for the server, liveness and each service it serves, and ends a Watch at the caller's deadline", async () => {
    // The admin service answers on the admin listener only: on the service port it is unknown.
    expect(await healthOverGrpcJs(stack.shipment.url, ["", LIVENESS_SERVICE, ...SERVICE_NAMES, ...ADMIN_SERVICE_NAMES])).toEqual({
      checks: {
        "": "SERVING",
        [LIVENESS_SERVICE]: "SERVING",
        "tawsil.shipment.v1.ShipmentService": "SERVING",
        "tawsil.shipment.v1.MediaAssetService": "SERVING",
        "tawsil.shipment.v1.ShipmentAdminService": "NOT_FOUND",
        [UNKNOWN_SERVICE]: "NOT_FOUND",
      },
      watch: { messages: [{ status: "SERVING" }], status: "DEADLINE_EXCEEDED" },
    });
    expect((await healthOverGrpcJs(stack.shipment.adminUrl!, ["", ...ADMIN_SERVICE_NAMES])).checks).toMatchObject({ "": "SERVING", "tawsil.shipment.v1.ShipmentAdminService": "SERVING" });
  });

  it("creates a shipment within the caller's deadline, echoes its request id, and reads it back", async () => {
    const caller = newCaller();
    const { response, headers, status } = await create("grpcjs-create-0001", draft("ORDER-GRPCJS"), merchantId, caller);
    expect(GrpcStatus[status.code]).toBe("OK");
    expect(response).toMatchObject({
      replayed: false,
      shipment: { merchantId, state: "SHIPMENT_STATE_READY_FOR_DISPATCH", version: "1", externalReference: "ORDER-GRPCJS", currency: "SAR", pickup: { cityCode: "RUH" } },
    });
    expect(headers.get("x-request-id")).toEqual([caller.requestId]);
    const shipmentId = (response?.shipment as { shipmentId: string }).shipmentId;
    const read = await call(shipments, "GetShipment", { merchantId, shipmentId });
    expect(read.response).toMatchObject({ shipment: { shipmentId, version: "1" } });
  });

  it("fails as a stock client reads it: status, message, ErrorReason and FieldViolations for each kind of error", async () => {
    expect(failureOf(await call(shipments, "GetShipment", { merchantId, shipmentId: randomUUID() }))).toMatchObject({ status: "NOT_FOUND", details: [errorReason("SHIPMENT_NOT_FOUND")] });
    const created = await create("grpcjs-errors-0001", draft("ORDER-ERRORS"));
    const shipmentId = (created.response?.shipment as { shipmentId: string }).shipmentId;
    expect(failureOf(await call(shipments, "GetShipment", { merchantId: otherMerchantId, shipmentId }))).toMatchObject({ status: "PERMISSION_DENIED", details: [errorReason("ACCESS_DENIED")] });
    expect(failureOf(await create("grpcjs-unknown-ref-1", draft("ORDER-UNKNOWN", { savedLocationCode: "NOWHERE" })))).toMatchObject({
      status: "INVALID_ARGUMENT",
      details: [errorReason("VALIDATION_FAILED"), { type: "tawsil.common.v1.FieldViolations", value: { violations: [{ field: "saved_location_code", code: "UNKNOWN_REFERENCE", params: { entity: "saved location" } }] } }],
    });
    expect(failureOf(await create("grpcjs-duplicate-ref", draft("ORDER-ERRORS")))).toMatchObject({ status: "ALREADY_EXISTS", details: [errorReason("DUPLICATE_REFERENCE")] });
    expect(failureOf(await create("grpcjs-errors-0001", draft("ORDER-OTHER-BODY")))).toMatchObject({ status: "FAILED_PRECONDITION", details: [errorReason("IDEMPOTENCY_KEY_REUSED")] });
    expect(failureOf(await call(admin, "ApproveShipment", { shipmentId: randomUUID() }))).toMatchObject({ status: "NOT_FOUND", details: [errorReason("SHIPMENT_NOT_FOUND")] });
  });
});
