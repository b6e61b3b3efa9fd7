import { createLogger } from "@tawsil/logging";
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import { DispatchStep, ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { problemSchemaErrors, type TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDispatchDatabase, putFleetOnShift, startTestService as startDispatch } from "../../services/dispatch/test/support";
import { startTestService as startPricing } from "../../services/pricing/test/support";
import { startShipmentService, type RunningShipmentService } from "../../services/shipment/src/server";
import { AL_OLAYA, createShipmentDatabase, TERMS, testConfig } from "../../services/shipment/test/support";
import { accessToken, startStack, type Stack } from "./support/stack";

/**
 * Cancel through the gateway against the real shipment service (and the pricing and dispatch
 * services a create needs) on real PostgreSQL. No dispatcher runs: the test moves the shipment
 * through its offer as dispatch would, through the shipment service's own RPCs.
 */
const adminUrl = inject("databaseAdminUrl");
let stack: Stack;
let writer: string;
const databases: TestDatabase[] = [];
const closers: (() => Promise<void>)[] = [];
let shipmentUrl = "";

beforeAll(async () => {
  stack = await startStack({
    adminUrl,
    environment: "sandbox",
    behindGateway: async (merchantUrl) => {
      const [dispatchDb, shipmentDb] = await Promise.all([createDispatchDatabase(adminUrl, "gwcancel"), createShipmentDatabase(adminUrl, "gwcancel")]);
      databases.push(dispatchDb, shipmentDb);
      await putFleetOnShift(dispatchDb.url);
      const dispatch = await startDispatch(dispatchDb.url, { SHIPMENT_SERVICE_URL: "http://127.0.0.1:9" });
      closers.push(() => dispatch.close());
      const pricing = await startPricing({ merchantUrl, dispatchDatabaseUrl: dispatchDb.url });
      closers.push(() => pricing.close());
      const shipment: RunningShipmentService = await startShipmentService(testConfig(shipmentDb.url, { merchantUrl, pricingUrl: pricing.url }), createLogger({ service: "shipment-test", level: "silent" }));
      closers.push(() => shipment.close());
      shipmentUrl = shipment.url;
      return { SHIPMENT_SERVICE_URL: shipment.url, PRICING_SERVICE_URL: pricing.url };
    },
  });
  const code = stack.merchant.code;
  await stack.admin.addRateCard({ merchantCode: code, terms: TERMS });
  await stack.admin.addSavedLocation({ merchantCode: code, code: "WAREHOUSE-1", coordinate: AL_OLAYA, addressLine: "King Fahd Rd, Al Olaya", cityCode: "RUH" });
  await stack.admin.setMerchantStatus({ merchantCode: code, status: MerchantStatus.ACTIVE });
  writer = await accessToken(stack.baseUrl, stack.merchant.full);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  for (const close of closers.reverse()) await close();
  await Promise.all(databases.map((db) => db.drop()));
});

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${stack.baseUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${writer}`, "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

async function problemCode(res: Response): Promise<string> {
  const body = (await res.json()) as { code: string };
  expect(problemSchemaErrors(body)).toEqual([]);
  return `${res.status} ${body.code}`;
}

describe("cancel through the gateway", () => {
  it("decides a keyless cancel afresh once the shipment is cancellable again; a keyed one replays its 409 (decisions.md section 3)", async () => {
    const created = await post("/v2/external/shipments", {
      reference: "GW-CANCEL-REOFFERED",
      pickup: { savedLocationCode: "WAREHOUSE-1" },
      destination: { latitude: 24.666, longitude: 46.73 },
      recipient: { name: "Noura", mobile: "0512345678" },
    });
    expect(created.status).toBe(201);
    const { id, version } = (await created.json()) as { id: string; version: number };
    // Dispatch offers it to a driver (OFFERED): no cancel may win now.
    const shipments = createPeerClient(ShipmentService, shipmentUrl);
    await shipments.reserveForOffer({ shipmentId: id, expectedVersion: BigInt(version) });
    const cancel = (headers: Record<string, string> = {}) => post(`/v2/external/shipments/${id}/cancel`, { reason: "CUSTOMER_REQUEST" }, headers);
    const keyed = { "idempotency-key": "GW-CANCEL-REOFFERED-KEY-1" };
    expect(await problemCode(await cancel())).toBe("409 SHIPMENT_ALREADY_ASSIGNED");
    expect(await problemCode(await cancel(keyed))).toBe("409 SHIPMENT_ALREADY_ASSIGNED");
    // No driver accepts before the offer expires: DISPATCH_UNRESOLVED, cancellable again.
    await shipments.applyDispatchStep({ shipmentId: id, step: DispatchStep.UNRESOLVED });
    // Under the merchant's own key it is the same request: its stored 409 replays.
    expect(await problemCode(await cancel(keyed))).toBe("409 SHIPMENT_ALREADY_ASSIGNED");
    // Without a key the cancel is decided afresh, and then replays its 200.
    const cancelled = await cancel();
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id, status: "CANCELLED" });
    const again = await cancel();
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ id, status: "CANCELLED" });
  });
});
