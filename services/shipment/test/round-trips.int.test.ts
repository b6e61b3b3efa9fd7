import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { capturedLogger, countPgRoundTrips, type RoundTripCounter } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startShipmentService, type RunningShipmentService } from "../src/server";
import { draft, idempotency, startStack, testConfig, type Stack } from "./support";

/**
 * Issue 9: the create does its work in four round trips to PostgreSQL (BEGIN, the idempotency
 * lock, one statement that reads and writes everything, COMMIT); issue 34 took away the read of
 * the key's record that came before them, which a replay is answered by as well. Counted on the
 * wire, between a shipment service and its database, so a statement added anywhere (by Prisma or
 * by us) shows.
 */
let stack: Stack;
let wire: RoundTripCounter;
let counted: RunningShipmentService;
let merchantId = "";

beforeAll(async () => {
  stack = await startStack(inject("databaseAdminUrl"), "trips");
  merchantId = await stack.newMerchant("TRIPS");
  wire = await countPgRoundTrips(stack.databaseUrl);
  const { logger } = capturedLogger("shipment-counted");
  counted = await startShipmentService(testConfig(wire.url, { merchantUrl: stack.merchant.url, pricingUrl: stack.pricingUrl }), logger);
});

afterAll(async () => {
  await counted?.close();
  await wire?.close();
  await stack?.close();
});

describe("CreateShipment on the wire", () => {
  it("takes four round trips: BEGIN, lock, one statement, COMMIT; a replay takes the same four", async () => {
    const client = createPeerClient(ShipmentService, counted.url, { timeoutMs: 30_000 });
    const create = (reference: string) => {
      const body = draft(reference);
      return client.createShipment({ merchantId, idempotency: idempotency(reference, body), draft: body });
    };
    // Warm: the merchant context cached, the pool's connections open.
    await create("TRIPS-WARM");
    const trips: number[] = [];
    for (const reference of ["TRIPS-1", "TRIPS-2", "TRIPS-3"]) {
      wire.reset();
      await create(reference);
      trips.push(wire.count());
    }
    expect(trips).toEqual([4, 4, 4]);
    wire.reset();
    expect((await create("TRIPS-1")).replayed).toBe(true);
    expect(wire.count()).toBe(4);
  });
});
