import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eventually, startDispatchStack, type DispatchReplica, type DispatchStack } from "./stack";
import { query } from "./support";

let stack: DispatchStack;
let second: DispatchReplica;

beforeAll(async () => {
  stack = await startDispatchStack(inject("databaseAdminUrl"), inject("kafkaBrokers"), "replicas", {
    TAWSIL_ENVIRONMENT: "sandbox",
    SANDBOX_FLEET_ENABLED: "true",
    SANDBOX_FAILURE_RATE: "0",
    SANDBOX_SPEED_KMH: "6000",
    DISPATCHER_SAFETY_NET_MS: "3600000",
    LEADER_RETRY_MS: "300",
  });
});

afterAll(async () => {
  await stack?.close();
});

/** Which roles a replica's log says it took on (the leader session logs "leading" once per role). */
function rolesLed(lines: readonly string[]): string[] {
  return lines
    .map((line) => JSON.parse(line) as { message?: string; component?: string })
    .filter((entry) => entry.message === "leading")
    .map((entry) => entry.component ?? "")
    .sort();
}

const delivered = (shipmentId: string) => async () =>
  (await stack.shipments.client.getShipment({ merchantId: stack.merchantId, shipmentId })).shipment?.state === ShipmentState.DELIVERED ? true : undefined;

async function offersPerShipment(ids: readonly string[]): Promise<number[]> {
  const counts = [];
  for (const id of ids) {
    const [row] = await query<{ offers: number }>(stack.dispatchDb.url, `SELECT count(*)::int AS offers FROM offer WHERE shipment_id = $1::uuid`, id);
    counts.push(row?.offers ?? -1);
  }
  return counts;
}

const ROLES = ["dispatcher", "sandbox-fleet"];

describe("two dispatch replicas on one database", () => {
  it("have one leader for the dispatcher and the fleet, which offer every job once", async () => {
    await eventually(async () => (rolesLed(stack.logLines).length === 2 ? true : undefined), "the first replica leading", 30_000);
    second = await stack.startReplica();
    const ids = [await stack.createShipment("REPLICA-1"), await stack.createShipment("REPLICA-2"), await stack.createShipment("REPLICA-3")];
    for (const id of ids) await eventually(delivered(id), `${id} delivered`, 90_000);
    expect(rolesLed(stack.logLines)).toEqual(ROLES);
    expect(rolesLed(second.logLines)).toEqual([]);
    expect(await offersPerShipment(ids)).toEqual([1, 1, 1]);
  }, 150_000);

  it("wake the leader with a change made on the other replica", async () => {
    // Every simulated Riyadh driver goes off duty, through the follower.
    const drivers = await query<{ id: string }>(stack.dispatchDb.url, `SELECT id::text FROM driver WHERE simulated AND city_code = 'RUH' ORDER BY id`);
    for (const { id } of drivers) await second.drivers.setAvailability({ driverId: id, available: false });
    const shipmentId = await stack.createShipment("REPLICA-WAKE");
    await eventually(
      async () => ((await query<{ state: string }>(stack.dispatchDb.url, `SELECT state::text FROM dispatch_job WHERE shipment_id = $1::uuid`, shipmentId))[0]?.state === "WAITING" ? true : undefined),
      "a job with no driver",
      30_000,
    );
    // Back on duty through the follower: only the notification it sends can reach the leader.
    for (const { id } of drivers) await second.drivers.setAvailability({ driverId: id, available: true });
    await eventually(delivered(shipmentId), "delivered", 90_000);
    expect(rolesLed(second.logLines)).toEqual([]);
    expect(await offersPerShipment([shipmentId])).toEqual([1]);
  }, 150_000);

  it("hand both roles to the other replica when the leader stops", async () => {
    await stack.dispatch.close();
    await eventually(async () => (rolesLed(second.logLines).length === 2 ? true : undefined), "the second replica leading", 30_000);
    expect(rolesLed(second.logLines)).toEqual(ROLES);
    // Jobs now reach the second replica's consumer, dispatcher and fleet.
    const shipmentId = await stack.createShipment("REPLICA-TAKEOVER");
    await eventually(delivered(shipmentId), "delivered after the takeover", 90_000);
    expect(await offersPerShipment([shipmentId])).toEqual([1]);
  }, 150_000);
});
