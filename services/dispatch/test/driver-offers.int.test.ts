import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AL_MALAZ, eventually, SAQR_BIKE, startDispatchStack, type DispatchStack } from "./stack";
import { query } from "./support";

/*
 * Which offer a driver gets, and when their app learns of it. The sandbox's backlog order (issue
 * 30): after a load test leaves shipments waiting, a driver who comes free is given the newest, so
 * the shipment a developer just created is not queued behind the backlog (no setting is given: the
 * sandbox's default is under test). A long poll for offers is answered when the offer commits.
 */
let stack: DispatchStack;

beforeAll(async () => {
  stack = await startDispatchStack(inject("databaseAdminUrl"), inject("kafkaBrokers"), "driveroffers", {
    TAWSIL_ENVIRONMENT: "sandbox",
    DISPATCHER_SAFETY_NET_MS: "3600000",
  });
});

afterAll(async () => {
  await stack?.close();
});

async function newDriver(name: string, onShift: boolean): Promise<string> {
  const driverId = randomUUID();
  await query(stack.dispatchDb.url, `INSERT INTO driver (id, carrier_service_id, city_code, name, updated_at) VALUES ($1::uuid, $2::uuid, 'RUH', $3, now())`, driverId, SAQR_BIKE, name);
  if (onShift) await stack.drivers.setAvailability({ driverId, available: true, position: AL_MALAZ });
  return driverId;
}

const jobState = async (shipmentId: string) =>
  (await query<{ state: string }>(stack.dispatchDb.url, `SELECT state::text AS state FROM dispatch_job WHERE shipment_id = $1::uuid`, shipmentId))[0]?.state;

describe("a driver's long poll for offers", () => {
  it("is answered when an offer for the driver commits, while another driver's poll still waits", async () => {
    const waiting = await newDriver("long poll", true);
    const other = await newDriver("never offered", false);
    let otherSettled = false;
    // A shorter wait than the first call's: had the first not been woken, this one would end before it.
    const otherPoll = stack.drivers.listOffers({ driverId: other, waitMs: 15_000 }).finally(() => (otherSettled = true));
    const poll = stack.drivers.listOffers({ driverId: waiting, waitMs: 20_000 });
    const shipmentId = await stack.createShipment("LONG-POLL");
    const { offers } = await poll;
    expect(offers.map((offer) => offer.shipmentId)).toEqual([shipmentId]);
    expect(otherSettled).toBe(false);
    expect((await otherPoll).offers).toEqual([]);
    await stack.drivers.setAvailability({ driverId: waiting, available: false });
  }, 60_000);

  it("ends with no offer when the driver goes off shift holding one: the offer is declined and its job offered to the next driver at once", async () => {
    // The newest waiting job (the sandbox's order) when the driver comes on shift.
    const shipmentId = await stack.createShipment("OFF-SHIFT");
    await eventually(async () => ((await jobState(shipmentId)) === "WAITING" ? true : undefined), "a waiting job");
    const leaving = await newDriver("ends shift", true);
    const { offers } = await stack.drivers.listOffers({ driverId: leaving, waitMs: 20_000 });
    expect(offers.map((offer) => offer.shipmentId)).toEqual([shipmentId]);
    await stack.drivers.setAvailability({ driverId: leaving, available: false });
    const states = await query<{ state: string }>(stack.dispatchDb.url, `SELECT state::text AS state FROM offer WHERE driver_id = $1::uuid`, leaving);
    expect(states.map((row) => row.state)).toEqual(["DECLINED"]);
    // Not left to expire: the next driver is offered it well within the offer's time.
    const next = await newDriver("next driver", true);
    const offer = await eventually(async () => (await stack.drivers.listOffers({ driverId: next })).offers[0], "the job offered to the next driver", 10_000);
    expect(offer.shipmentId).toBe(shipmentId);
    await stack.drivers.setAvailability({ driverId: next, available: false });
  }, 60_000);

  it("refuses a wait beyond 20 s", async () => {
    const driverId = await newDriver("too patient", false);
    await expect(stack.drivers.listOffers({ driverId, waitMs: 20_001 })).rejects.toThrow(/wait_ms/);
  });
});

describe("the sandbox's backlog order", () => {
  it("gives a driver who comes on duty the newest waiting job, not the oldest", async () => {
    const backlog: string[] = [];
    for (let i = 0; i < 3; i++) backlog.push(await stack.createShipment(`BACKLOG-${i}`));
    const newest = await stack.createShipment("NEWEST");
    for (const shipmentId of [...backlog, newest]) await eventually(async () => ((await jobState(shipmentId)) === "WAITING" ? true : undefined), "a waiting job");

    const driverId = await newDriver("backlog driver", true);
    const offer = await eventually(async () => (await stack.drivers.listOffers({ driverId })).offers[0], "an offer", 30_000);
    expect(offer.shipmentId).toBe(newest);
    for (const shipmentId of backlog) expect(await jobState(shipmentId)).toBe("WAITING");
  }, 90_000);
});
