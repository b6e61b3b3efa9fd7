import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AL_MALAZ, eventually, SAQR_BIKE, startDispatchStack, type DispatchReplica, type DispatchStack } from "./stack";
import { query } from "./support";

let stack: DispatchStack;
let second: DispatchReplica;

beforeAll(async () => {
  stack = await startDispatchStack(inject("databaseAdminUrl"), inject("kafkaBrokers"), "replicas", {
    TAWSIL_ENVIRONMENT: "sandbox",
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

/** Drivers of this test, on duty through the given replica's driver API. */
async function onDuty(count: number, through: DispatchStack["drivers"] = stack.drivers): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    await query(stack.dispatchDb.url, `INSERT INTO driver (id, carrier_service_id, city_code, name, updated_at) VALUES ($1::uuid, $2::uuid, 'RUH', $3, now())`, id, SAQR_BIKE, `replica driver ${i}`);
    await through.setAvailability({ driverId: id, available: true, position: AL_MALAZ });
    ids.push(id);
  }
  return ids;
}

/** Each job's offer, accepted by whichever of the drivers holds it, as their apps would. */
async function acceptedAll(shipmentIds: readonly string[], driverIds: readonly string[]): Promise<void> {
  for (const shipmentId of shipmentIds) {
    const held = await eventually(async () => {
      for (const driverId of driverIds) {
        const offer = (await stack.drivers.listOffers({ driverId })).offers.find((o) => o.shipmentId === shipmentId);
        if (offer) return { driverId, offerId: offer.offerId };
      }
      return undefined;
    }, `the offer of ${shipmentId}`, 30_000);
    await stack.drivers.acceptOffer(held);
  }
}

async function offersPerShipment(ids: readonly string[]): Promise<number[]> {
  const counts = [];
  for (const id of ids) {
    const [row] = await query<{ offers: number }>(stack.dispatchDb.url, `SELECT count(*)::int AS offers FROM offer WHERE shipment_id = $1::uuid`, id);
    counts.push(row?.offers ?? -1);
  }
  return counts;
}

const jobState = async (shipmentId: string) =>
  (await query<{ state: string }>(stack.dispatchDb.url, `SELECT state::text FROM dispatch_job WHERE shipment_id = $1::uuid`, shipmentId))[0]?.state;

describe("two dispatch replicas on one database", () => {
  it("have one leader for the dispatcher, which offers every job once", async () => {
    await eventually(async () => (rolesLed(stack.logLines).length === 1 ? true : undefined), "the first replica leading", 30_000);
    second = await stack.startReplica();
    const drivers = await onDuty(3);
    const ids = [await stack.createShipment("REPLICA-1"), await stack.createShipment("REPLICA-2"), await stack.createShipment("REPLICA-3")];
    await acceptedAll(ids, drivers);
    expect(rolesLed(stack.logLines)).toEqual(["dispatcher"]);
    expect(rolesLed(second.logLines)).toEqual([]);
    expect(await offersPerShipment(ids)).toEqual([1, 1, 1]);
  }, 150_000);

  it("wake the leader with a change made on the other replica", async () => {
    const shipmentId = await stack.createShipment("REPLICA-WAKE");
    await eventually(async () => ((await jobState(shipmentId)) === "WAITING" ? true : undefined), "a job with no free driver", 30_000);
    // On duty through the follower: only the notification it sends can reach the leader.
    const drivers = await onDuty(1, second.drivers);
    await acceptedAll([shipmentId], drivers);
    expect(rolesLed(second.logLines)).toEqual([]);
    expect(await offersPerShipment([shipmentId])).toEqual([1]);
  }, 150_000);

  it("hand the dispatcher to the other replica when the leader stops", async () => {
    await stack.dispatch.close();
    await eventually(async () => (rolesLed(second.logLines).length === 1 ? true : undefined), "the second replica leading", 30_000);
    expect(rolesLed(second.logLines)).toEqual(["dispatcher"]);
    // Jobs now reach the second replica's consumer and dispatcher.
    const drivers = await onDuty(1, second.drivers);
    const shipmentId = await stack.createShipment("REPLICA-TAKEOVER");
    await eventually(async () => {
      const offer = (await second.drivers.listOffers({ driverId: drivers[0]! })).offers.find((o) => o.shipmentId === shipmentId);
      return offer ? second.drivers.acceptOffer({ driverId: drivers[0]!, offerId: offer.offerId }) : undefined;
    }, "offered after the takeover", 30_000);
    expect(await offersPerShipment([shipmentId])).toEqual([1]);
  }, 150_000);
});
