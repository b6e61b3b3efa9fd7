import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AL_MALAZ, AL_OLAYA, eventually, SAQR_BIKE, startDispatchStack, type DispatchStack } from "./stack";
import { query } from "./support";

let stack: DispatchStack;

// No periodic round at all within the test (the safety net is an hour away): only wake-ups and
// the due-time timer can move anything.
beforeAll(async () => {
  stack = await startDispatchStack(inject("databaseAdminUrl"), inject("kafkaBrokers"), "events", {
    // Long enough for the test to see an offer while it is open on a loaded machine: at 2 s a fresh
    // clone's run (half a core taken) saw the first test's driver offered the newer job and let it
    // lapse before its first look, and the second test's first offers expire unseen.
    OFFER_TIMEOUT_MS: "8000",
    DISPATCHER_SAFETY_NET_MS: "3600000",
    // Production's order, named: the sandbox's own (newest first) is backlog-order.int.test.ts's.
    DISPATCH_BACKLOG_ORDER: "OLDEST_FIRST",
  });
});

afterAll(async () => {
  await stack?.close();
});

async function newDriver(name: string, position: { latitudeMicro: number; longitudeMicro: number }): Promise<string> {
  const id = randomUUID();
  await query(stack.dispatchDb.url, `INSERT INTO driver (id, carrier_service_id, city_code, name, updated_at) VALUES ($1::uuid, $2::uuid, 'RUH', $3, now())`, id, SAQR_BIKE, name);
  await stack.drivers.setAvailability({ driverId: id, available: true, position });
  return id;
}

const jobState = async (shipmentId: string) =>
  (await query<{ state: string }>(stack.dispatchDb.url, `SELECT state::text AS state FROM dispatch_job WHERE shipment_id = $1::uuid`, shipmentId))[0]?.state;

const offerOf = (driverId: string, shipmentId: string) => async () =>
  (await stack.drivers.listOffers({ driverId })).offers.find((offer) => offer.shipmentId === shipmentId);

const cancel = (shipmentId: string) =>
  stack.shipments.client.cancelShipment({
    merchantId: stack.merchantId,
    shipmentId,
    reasonCode: "CUSTOMER_REQUEST",
    idempotency: { key: `cancel-${shipmentId}`, clientId: "", fingerprint: "a".repeat(64) },
  });

describe("the event-driven dispatcher", () => {
  it("offers a driver who comes on duty the oldest waiting job, then the next one when they decline", async () => {
    const older = await stack.createShipment("WAKE-OLDER");
    await eventually(async () => ((await jobState(older)) === "WAITING" ? true : undefined), "the older job");
    const newer = await stack.createShipment("WAKE-NEWER");
    await eventually(async () => ((await jobState(newer)) === "WAITING" ? true : undefined), "the newer job");

    const driver = await newDriver("on duty", AL_MALAZ);
    const offer = await eventually(offerOf(driver, older), "the offer of the oldest job", 30_000);
    expect(await jobState(newer)).toBe("WAITING");

    // Declining frees the driver: the older job has no one else (unresolved), the newer one is theirs.
    await stack.drivers.declineOffer({ driverId: driver, offerId: offer.offerId });
    const next = await eventually(offerOf(driver, newer), "the offer of the next job", 30_000);
    expect(await jobState(older)).toBe("UNRESOLVED");

    // Out of the next test's way: off shift, which declines the offer the driver holds (so the
    // newer job is unresolved too, not left to the offer's expiry), then both cancelled.
    await stack.drivers.setAvailability({ driverId: driver, available: false });
    await expect(stack.drivers.declineOffer({ driverId: driver, offerId: next.offerId })).rejects.toThrow(/no longer open/);
    for (const shipmentId of [older, newer]) {
      await eventually(async () => ((await jobState(shipmentId)) === "UNRESOLVED" ? true : undefined), "unresolved", 30_000);
      await cancel(shipmentId);
      await eventually(async () => ((await jobState(shipmentId)) === "CANCELLED" ? true : undefined), "cancelled", 30_000);
    }
  }, 150_000);

  it("expires an offer at its due time and offers the next driver", async () => {
    const near = await newDriver("near", { latitudeMicro: AL_OLAYA.latitudeMicro + 1_000, longitudeMicro: AL_OLAYA.longitudeMicro });
    const far = await newDriver("far", AL_MALAZ);
    const shipmentId = await stack.createShipment("DUE-1");
    const first = await eventually(offerOf(near, shipmentId), "the first offer", 30_000);
    const second = await eventually(offerOf(far, shipmentId), "the re-offer after expiry", 30_000);
    const offers = await query<{ id: string; state: string }>(stack.dispatchDb.url, `SELECT id::text, state::text FROM offer WHERE shipment_id = $1::uuid ORDER BY created_at`, shipmentId);
    expect(offers).toEqual([
      { id: first.offerId, state: "EXPIRED" },
      { id: second.offerId, state: "OPEN" },
    ]);
    expect(Number(second.expireTimeUnixMs)).toBeGreaterThan(Number(first.expireTimeUnixMs));
  }, 120_000);
});
