import { randomUUID } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { AssignmentChangedSchema } from "@tawsil/proto/tawsil/dispatch/v1/events_pb";
import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AL_MALAZ, AL_OLAYA, eventually, SAQR_BIKE, startDispatchStack, type DispatchStack } from "./stack";
import { Code, failure, query } from "./support";
import { ASSIGNMENT_EVENTS_TOPIC, DRIVER_LOCATION_TOPIC } from "@tawsil/topology";

let stack: DispatchStack;

beforeAll(async () => {
  stack = await startDispatchStack(inject("databaseAdminUrl"), inject("kafkaBrokers"), "offers", {
    // Long enough for the test to see and answer an offer while it is open on a loaded machine
    // (event-driven.int.test.ts's 2 s failed so); each expiry a test waits for costs it this much.
    OFFER_TIMEOUT_MS: "8000",
    DISPATCHER_SAFETY_NET_MS: "600000",
  });
});

afterAll(async () => {
  await stack?.close();
});

/** A Riyadh bike driver, available at `position`. */
async function newDriver(name: string, position: { latitudeMicro: number; longitudeMicro: number }): Promise<string> {
  const id = randomUUID();
  await query(stack.dispatchDb.url, `INSERT INTO driver (id, carrier_service_id, city_code, name, updated_at) VALUES ($1::uuid, $2::uuid, 'RUH', $3, now())`, id, SAQR_BIKE, name);
  await stack.drivers.setAvailability({ driverId: id, available: true, position });
  return id;
}

const shipmentState = async (shipmentId: string) =>
  (await stack.shipments.client.getShipment({ merchantId: stack.merchantId, shipmentId })).shipment?.state;

const openOffer = (driverId: string, shipmentId: string) => async () =>
  (await stack.drivers.listOffers({ driverId })).offers.find((offer) => offer.shipmentId === shipmentId);

async function assignmentChanges(shipmentId: string): Promise<[string, string][]> {
  const rows = await query<{ payload: Uint8Array }>(stack.dispatchDb.url, `SELECT payload FROM outbox_event WHERE key = $1 AND topic = $2 ORDER BY seq`, shipmentId, ASSIGNMENT_EVENTS_TOPIC);
  return rows.map((row) => fromBinary(AssignmentChangedSchema, row.payload)).map((event) => [event.change, event.driverRef]);
}

const nearPickup = { latitudeMicro: AL_OLAYA.latitudeMicro + 1_000, longitudeMicro: AL_OLAYA.longitudeMicro };
const fartherAway = { latitudeMicro: AL_MALAZ.latitudeMicro, longitudeMicro: AL_MALAZ.longitudeMicro };

describe("offers", () => {
  let near = "";
  let far = "";

  it("offers the nearest driver, re-offers the next one when the offer expires, and assigns on acceptance", async () => {
    [near, far] = [await newDriver("near", nearPickup), await newDriver("far", fartherAway)];
    const shipmentId = await stack.createShipment("EXPIRY-1");
    const first = await eventually(openOffer(near, shipmentId), "the offer to the nearest driver");
    expect((await stack.drivers.listOffers({ driverId: far })).offers).toEqual([]);
    // Nobody accepts: the offer lapses and the next candidate gets one.
    const second = await eventually(openOffer(far, shipmentId), "the re-offer to the next driver");
    expect(await failure(stack.drivers.acceptOffer({ driverId: near, offerId: first.offerId }))).toMatchObject({ code: Code.FailedPrecondition, reason: "OFFER_NOT_OPEN" });
    expect(await shipmentState(shipmentId)).toBe(ShipmentState.OFFERED);

    await stack.drivers.acceptOffer({ driverId: far, offerId: second.offerId });
    expect(await shipmentState(shipmentId)).toBe(ShipmentState.ACCEPTED);
    expect(await assignmentChanges(shipmentId)).toEqual([
      ["OFFERED", near],
      ["EXPIRED", near],
      ["OFFERED", far],
      ["ACCEPTED", far],
    ]);
    const [offers] = await query<{ states: string }>(stack.dispatchDb.url, `SELECT string_agg(state::text, ',' ORDER BY created_at) AS states FROM offer WHERE shipment_id = $1::uuid`, shipmentId);
    expect(offers?.states).toBe("EXPIRED,ACCEPTED");

    // The driver carries it through; DELIVERED frees them.
    for (const progress of [1, 2, 3]) await stack.drivers.reportProgress({ driverId: far, shipmentId, progress, reasonCode: "" });
    expect(await shipmentState(shipmentId)).toBe(ShipmentState.DELIVERED);
    const [driver] = await query<{ current_shipment_id: string | null }>(stack.dispatchDb.url, `SELECT current_shipment_id FROM driver WHERE id = $1::uuid`, far);
    expect(driver?.current_shipment_id).toBeNull();
    expect(await failure(stack.drivers.reportProgress({ driverId: far, shipmentId, progress: 3, reasonCode: "" }))).toMatchObject({ code: Code.FailedPrecondition, reason: "NOT_ASSIGNED" });
  });

  it("turns exhaustion into DISPATCH_UNRESOLVED and retries when a driver becomes available", async () => {
    await stack.drivers.setAvailability({ driverId: far, available: false });
    const shipmentId = await stack.createShipment("EXHAUST-1");
    const offer = await eventually(openOffer(near, shipmentId), "the only candidate's offer");
    await stack.drivers.declineOffer({ driverId: near, offerId: offer.offerId });
    await eventually(async () => ((await shipmentState(shipmentId)) === ShipmentState.DISPATCH_UNRESOLVED ? true : undefined), "DISPATCH_UNRESOLVED");
    expect((await stack.drivers.listOffers({ driverId: near })).offers).toEqual([]);

    // A driver comes on duty: the unresolved shipment is reserved again and offered.
    await stack.drivers.setAvailability({ driverId: far, available: true, position: fartherAway });
    const retry = await eventually(openOffer(far, shipmentId), "the retry's offer");
    expect(await shipmentState(shipmentId)).toBe(ShipmentState.OFFERED);
    await stack.drivers.acceptOffer({ driverId: far, offerId: retry.offerId });
    expect(await shipmentState(shipmentId)).toBe(ShipmentState.ACCEPTED);
    expect((await assignmentChanges(shipmentId)).map(([change]) => change)).toEqual(["OFFERED", "DECLINED", "UNRESOLVED", "OFFERED", "ACCEPTED"]);
    await stack.drivers.reportProgress({ driverId: far, shipmentId, progress: 1, reasonCode: "" });
    expect(await failure(stack.drivers.reportProgress({ driverId: far, shipmentId, progress: 4, reasonCode: "" }))).toMatchObject({ code: Code.InvalidArgument });
    await stack.drivers.reportProgress({ driverId: far, shipmentId, progress: 4, reasonCode: "RECIPIENT_UNAVAILABLE" });
    expect(await shipmentState(shipmentId)).toBe(ShipmentState.DELIVERY_FAILED);
  });

  it("publishes location reports keyed by the shipment carried, else the driver", async () => {
    await stack.drivers.reportLocations({ driverId: near, fixes: [{ position: nearPickup, accuracyMetres: 5, recordTimeUnixMs: BigInt(Date.now()) }] });
    const rows = await query<{ key: string }>(stack.dispatchDb.url, `SELECT key FROM outbox_event WHERE topic = $1 ORDER BY seq DESC LIMIT 1`, DRIVER_LOCATION_TOPIC);
    expect(rows[0]?.key).toBe(near);
    expect(await failure(stack.drivers.reportLocations({ driverId: randomUUID(), fixes: [{ position: nearPickup, accuracyMetres: 5, recordTimeUnixMs: 0n }] }))).toMatchObject({ code: Code.NotFound, reason: "DRIVER_NOT_FOUND" });
  });

  it("lets a racing cancel and offer have exactly one winner, per shipment", async () => {
    await stack.drivers.setAvailability({ driverId: near, available: false });
    await stack.drivers.setAvailability({ driverId: far, available: false });
    for (let i = 0; i < 12; i++) await newDriver(`race-${i}`, { latitudeMicro: AL_OLAYA.latitudeMicro + i * 500, longitudeMicro: AL_OLAYA.longitudeMicro });
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => stack.createShipment(`RACE-${i}`)));
    // Cancels fired while the dispatcher works: some before the job exists, some during, some after the offer.
    const outcomes = await Promise.all(
      ids.map(async (shipmentId, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 150));
        const call = stack.shipments.client.cancelShipment({
          merchantId: stack.merchantId,
          shipmentId,
          reasonCode: "CUSTOMER_REQUEST",
          idempotency: { key: `cancel-${shipmentId}`, clientId: "", fingerprint: "a".repeat(64) },
        });
        return call.then(() => "CANCELLED" as const, async (error: unknown) => (await failure(Promise.reject(error))).reason);
      }),
    );
    // Let the dispatcher see every shipment at least once more.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const [i, shipmentId] of ids.entries()) {
      const state = await shipmentState(shipmentId);
      const [offers] = await query<{ live: number; total: number }>(
        stack.dispatchDb.url,
        `SELECT count(*) FILTER (WHERE state IN ('OPEN', 'ACCEPTED'))::int AS live, count(*)::int AS total FROM offer WHERE shipment_id = $1::uuid`,
        shipmentId,
      );
      if (outcomes[i] === "CANCELLED") {
        expect(state, shipmentId).toBe(ShipmentState.CANCELLED);
        expect(offers?.total, shipmentId).toBe(0);
      } else {
        expect(outcomes[i], shipmentId).toBe("SHIPMENT_ALREADY_ASSIGNED");
        expect([ShipmentState.OFFERED, ShipmentState.ACCEPTED, ShipmentState.DISPATCH_UNRESOLVED], shipmentId).toContain(state);
        expect(offers?.total, shipmentId).toBeGreaterThan(0);
      }
    }
  });
});
