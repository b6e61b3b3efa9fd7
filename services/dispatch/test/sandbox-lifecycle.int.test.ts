import { fromBinary } from "@bufbuild/protobuf";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { PublicStatus, ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { query as shipmentQuery } from "../../shipment/test/support";
import { eventually, startDispatchStack, type DispatchStack } from "./stack";
import { query } from "./support";

let stack: DispatchStack;

beforeAll(async () => {
  stack = await startDispatchStack(inject("databaseAdminUrl"), inject("kafkaBrokers"), "fleet", {
    TAWSIL_ENVIRONMENT: "sandbox",
    SANDBOX_FLEET_ENABLED: "true",
    SANDBOX_FAILURE_RATE: "0",
    SANDBOX_SPEED_KMH: "6000",
    DISPATCHER_SAFETY_NET_MS: "600000",
  });
});

afterAll(async () => {
  await stack?.close();
});

describe("the sandbox fleet", () => {
  it("delivers a created shipment by itself, with every public status in order and increasing versions", async () => {
    const shipmentId = await stack.createShipment("SANDBOX-1");
    await eventually(
      async () => ((await stack.shipments.client.getShipment({ merchantId: stack.merchantId, shipmentId })).shipment?.state === ShipmentState.DELIVERED ? true : undefined),
      "DELIVERED",
      90_000,
    );
    const rows = await shipmentQuery<{ payload: Uint8Array }>(stack.shipments.databaseUrl, "SELECT payload FROM outbox_event WHERE key = $1 ORDER BY seq", shipmentId);
    const events = rows.map((row) => fromBinary(ShipmentChangedSchema, row.payload));
    const versions = events.map((event) => event.shipment?.version ?? 0n);
    expect(versions.every((version, i) => i === 0 || version > (versions[i - 1] ?? 0n))).toBe(true);
    expect(events.filter((event) => event.publicStatusChanged).map((event) => PublicStatus[event.shipment?.publicStatus ?? 0])).toEqual([
      "CREATED",
      "ASSIGNED",
      "PICKED_UP",
      "OUT_FOR_DELIVERY",
      "DELIVERED",
    ]);
    // The simulated driver reported its way there, keyed by the shipment it carried.
    const [fixes] = await query<{ count: number }>(stack.dispatchDb.url, "SELECT count(*)::int AS count FROM outbox_event WHERE topic = 'dispatch.driver-location.v1' AND key = $1", shipmentId);
    expect(fixes?.count).toBeGreaterThan(0);
  }, 120_000);
});
