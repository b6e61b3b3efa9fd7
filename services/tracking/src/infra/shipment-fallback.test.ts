import { createClient, createRouterTransport } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { describe, expect, it } from "vitest";
import { ShipmentServiceFallback } from "./shipment-fallback";

const createdAt = new Date("2026-11-20T08:00:00.000Z");
const endedAt = new Date("2026-11-21T09:30:00.000Z");

/** The shipment service's answer, in memory: the state now and, when given, its terminal time. */
function fallbackAnswering(state: ShipmentState, terminalAt: Date | null) {
  const transport = createRouterTransport((router) => {
    router.service(ShipmentService, {
      findTrackedShipment: () => ({
        shipment: { shipmentId: "0190a0b0-0000-7000-8000-000000000001", merchantId: "0190a0b0-0000-7000-8000-000000000002", state, createTime: timestampFromDate(createdAt) },
        ...(terminalAt ? { terminalTime: timestampFromDate(terminalAt) } : {}),
      }),
    });
  });
  return new ShipmentServiceFallback(createClient(ShipmentService, transport));
}

describe("the shipment service's fallback answer", () => {
  it("carries the terminal time the shipment service gives, so the link expires from it", async () => {
    expect((await fallbackAnswering(ShipmentState.CANCELLED, endedAt).byCodeHash(new Uint8Array(32)))?.terminalAt).toEqual(endedAt);
  });

  it("takes a terminal shipment without one (an older shipment service) to have ended at its creation: early, never late", async () => {
    expect((await fallbackAnswering(ShipmentState.DELIVERED, null).byCodeHash(new Uint8Array(32)))?.terminalAt).toEqual(createdAt);
  });

  it("has no terminal time while the shipment moves", async () => {
    expect((await fallbackAnswering(ShipmentState.OUT_FOR_DELIVERY, null).byId("0190a0b0-0000-7000-8000-000000000001"))?.terminalAt).toBeNull();
  });
});
