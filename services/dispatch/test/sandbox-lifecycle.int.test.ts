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
  it("makes the replica ready only once every service and city it staffs has a driver on shift", async () => {
    const readiness = await eventually(async () => {
      const body = (await (await fetch(`${stack.dispatch.url}/readyz`)).json()) as { checks: Record<string, string> };
      return body.checks["sandbox-fleet"] === "up" ? body : undefined;
    }, "the fleet on shift", 60_000);
    expect(readiness.checks).toMatchObject({ "sandbox-fleet": "up" });
    const uncovered = await query<{ count: number }>(
      stack.dispatchDb.url,
      `SELECT count(*)::int AS count FROM carrier_service s JOIN carrier c ON c.id = s.carrier_id, unnest(s.cities) AS city
       WHERE s.active AND c.active AND city = ANY($1) AND NOT EXISTS (SELECT 1 FROM driver d WHERE d.carrier_service_id = s.id AND d.city_code = city AND d.available)`,
      ["RUH", "JED", "DMM", "MKK", "MED"],
    );
    expect(uncovered[0]?.count).toBe(0);
  }, 90_000);

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
