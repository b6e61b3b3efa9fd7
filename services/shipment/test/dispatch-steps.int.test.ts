import { randomUUID } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { PublicStatus, ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { DispatchStep } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Code, draft, failure, idempotency, query, startStack, violationsOf, type Stack } from "./support";

let stack: Stack;
let merchantId = "";

beforeAll(async () => {
  stack = await startStack(inject("databaseAdminUrl"), "dispatch_steps");
  merchantId = await stack.newMerchant("STEPPER");
});

afterAll(async () => {
  await stack?.close();
});

/** A new READY_FOR_DISPATCH shipment at version 1 (the create is one change); its id. */
async function created(reference: string): Promise<string> {
  const body = draft(reference);
  const { shipment } = await stack.client.createShipment({ merchantId, idempotency: idempotency(reference, body), draft: body });
  expect(shipment).toMatchObject({ state: ShipmentState.READY_FOR_DISPATCH, version: 1n });
  return shipment?.shipmentId ?? "";
}

/** A new shipment reserved for an offer: OFFERED at version 2. */
async function offered(reference: string): Promise<string> {
  const id = await created(reference);
  await stack.client.reserveForOffer({ shipmentId: id, expectedVersion: 1n });
  return id;
}

const step = (shipmentId: string, which: DispatchStep, fields: { expectedVersion?: bigint; reasonCode?: string } = {}) =>
  stack.client.applyDispatchStep({ shipmentId, step: which, ...fields });

/** The ShipmentChanged events in the outbox for a shipment, in order. */
async function eventsOf(shipmentId: string) {
  const rows = await query<{ payload: Uint8Array }>(stack.databaseUrl, "SELECT payload FROM outbox_event WHERE key = $1 ORDER BY seq", shipmentId);
  return rows.map((row) => fromBinary(ShipmentChangedSchema, row.payload));
}

async function rowOf(shipmentId: string) {
  const [row] = await query<{ state: string; version: string; reason_code: string | null }>(
    stack.databaseUrl,
    "SELECT state::text, version::text, reason_code FROM shipment WHERE id = $1::uuid",
    shipmentId,
  );
  return row;
}

const notAllowed = { code: Code.FailedPrecondition, reason: "STEP_NOT_ALLOWED" };

describe("ApplyDispatchStep", () => {
  it("walks create, reserve, REOFFER, ACCEPT, PICK_UP, START_LAST_LEG, DELIVER: one version and one event per step", async () => {
    const id = await offered("STEP-HAPPY");
    const walk: [DispatchStep, ShipmentState, PublicStatus][] = [
      [DispatchStep.REOFFER, ShipmentState.OFFERED, PublicStatus.CREATED],
      [DispatchStep.ACCEPT, ShipmentState.ACCEPTED, PublicStatus.ASSIGNED],
      [DispatchStep.PICK_UP, ShipmentState.PICKED_UP, PublicStatus.PICKED_UP],
      [DispatchStep.START_LAST_LEG, ShipmentState.OUT_FOR_DELIVERY, PublicStatus.OUT_FOR_DELIVERY],
      [DispatchStep.DELIVER, ShipmentState.DELIVERED, PublicStatus.DELIVERED],
    ];
    let version = 2n;
    for (const [which, state, publicStatus] of walk) {
      // Alternately with and without the compare-and-set.
      const { shipment } = await step(id, which, { expectedVersion: version % 2n ? version : 0n });
      version++;
      expect(shipment).toMatchObject({ shipmentId: id, state, publicStatus, version, reasonCode: "" });
      expect(shipment?.trackingUrl).toMatch(/\/t\/[A-Za-z0-9_-]{43}$/);
    }
    expect(await rowOf(id)).toEqual({ state: "DELIVERED", version: "7", reason_code: null });

    const events = await eventsOf(id);
    expect(events.map((e) => e.shipment?.version)).toEqual([1n, 2n, 3n, 4n, 5n, 6n, 7n]);
    expect(events.map((e) => [e.previousState, e.shipment?.state, e.publicStatusChanged])).toEqual([
      [ShipmentState.UNSPECIFIED, ShipmentState.READY_FOR_DISPATCH, true],
      [ShipmentState.READY_FOR_DISPATCH, ShipmentState.OFFERED, false],
      [ShipmentState.OFFERED, ShipmentState.OFFERED, false],
      [ShipmentState.OFFERED, ShipmentState.ACCEPTED, true],
      [ShipmentState.ACCEPTED, ShipmentState.PICKED_UP, true],
      [ShipmentState.PICKED_UP, ShipmentState.OUT_FOR_DELIVERY, true],
      [ShipmentState.OUT_FOR_DELIVERY, ShipmentState.DELIVERED, true],
    ]);
    // Every event carries the customer link the responses carry (decisions.md section 11).
    const { shipment: read } = await stack.client.getShipment({ merchantId, shipmentId: id });
    expect(new Set(events.map((e) => e.shipment?.trackingUrl))).toEqual(new Set([read?.trackingUrl]));

    // DELIVERED is terminal.
    for (const which of [DispatchStep.REOFFER, DispatchStep.DELIVER, DispatchStep.FAIL]) {
      expect(await failure(step(id, which, { reasonCode: "LATE" }))).toMatchObject(notAllowed);
    }
    expect(await eventsOf(id)).toHaveLength(7);
  });

  it("records UNRESOLVED without a public change and lets dispatch reserve the shipment again", async () => {
    const id = await offered("STEP-UNRESOLVED");
    const { shipment } = await step(id, DispatchStep.UNRESOLVED, { expectedVersion: 2n });
    expect(shipment).toMatchObject({ state: ShipmentState.DISPATCH_UNRESOLVED, publicStatus: PublicStatus.CREATED, version: 3n });
    // Getting back to OFFERED is ReserveForOffer's compare-and-set, never a REOFFER.
    expect(await failure(step(id, DispatchStep.REOFFER))).toMatchObject(notAllowed);
    expect(await failure(step(id, DispatchStep.ACCEPT))).toMatchObject(notAllowed);

    const reserved = await stack.client.reserveForOffer({ shipmentId: id, expectedVersion: 3n });
    expect(reserved.shipment).toMatchObject({ state: ShipmentState.OFFERED, version: 4n });
    const accepted = await step(id, DispatchStep.ACCEPT, { expectedVersion: 4n });
    expect(accepted.shipment).toMatchObject({ state: ShipmentState.ACCEPTED, publicStatus: PublicStatus.ASSIGNED, version: 5n });

    const events = await eventsOf(id);
    expect(events.slice(1).map((e) => [e.shipment?.version, e.previousState, e.shipment?.state, e.publicStatusChanged])).toEqual([
      [2n, ShipmentState.READY_FOR_DISPATCH, ShipmentState.OFFERED, false],
      [3n, ShipmentState.OFFERED, ShipmentState.DISPATCH_UNRESOLVED, false],
      [4n, ShipmentState.DISPATCH_UNRESOLVED, ShipmentState.OFFERED, false],
      [5n, ShipmentState.OFFERED, ShipmentState.ACCEPTED, true],
    ]);
  });

  it("fails a delivery only with a valid reason code, and stores it", async () => {
    const id = await offered("STEP-FAIL");
    await step(id, DispatchStep.ACCEPT);
    expect(await failure(step(id, DispatchStep.FAIL, { reasonCode: "RECIPIENT_UNREACHABLE" }))).toMatchObject(notAllowed);
    await step(id, DispatchStep.PICK_UP);

    expect(await failure(step(id, DispatchStep.FAIL))).toMatchObject({ code: Code.InvalidArgument, reason: "VALIDATION_FAILED" });
    expect(await violationsOf(step(id, DispatchStep.FAIL))).toEqual([{ field: "reason_code", code: "REQUIRED", params: {} }]);
    for (const bad of ["recipient_unreachable", "X", "1ABC", "A-B", `A${"B".repeat(48)}`]) {
      expect(await violationsOf(step(id, DispatchStep.FAIL, { reasonCode: bad }))).toEqual([{ field: "reason_code", code: "PATTERN_MISMATCH", params: {} }]);
    }
    expect(await rowOf(id)).toEqual({ state: "PICKED_UP", version: "4", reason_code: null });

    const { shipment } = await step(id, DispatchStep.FAIL, { expectedVersion: 4n, reasonCode: "RECIPIENT_UNREACHABLE" });
    expect(shipment).toMatchObject({ state: ShipmentState.DELIVERY_FAILED, publicStatus: PublicStatus.FAILED, version: 5n, reasonCode: "RECIPIENT_UNREACHABLE" });
    expect(await rowOf(id)).toEqual({ state: "DELIVERY_FAILED", version: "5", reason_code: "RECIPIENT_UNREACHABLE" });
    const last = (await eventsOf(id)).at(-1);
    expect([last?.previousState, last?.publicStatusChanged, last?.shipment?.reasonCode]).toEqual([ShipmentState.PICKED_UP, true, "RECIPIENT_UNREACHABLE"]);
    expect(await eventsOf(id)).toHaveLength(5);
    expect(await failure(step(id, DispatchStep.DELIVER))).toMatchObject(notAllowed);
  });

  it("fails a delivery out for delivery too; other steps ignore a reason code", async () => {
    const id = await offered("STEP-FAIL-LAST-LEG");
    await step(id, DispatchStep.ACCEPT, { reasonCode: "IGNORED" });
    await step(id, DispatchStep.PICK_UP);
    const { shipment: onTheWay } = await step(id, DispatchStep.START_LAST_LEG, { reasonCode: "not even valid" });
    expect(onTheWay).toMatchObject({ state: ShipmentState.OUT_FOR_DELIVERY, version: 5n, reasonCode: "" });
    const { shipment } = await step(id, DispatchStep.FAIL, { reasonCode: "ADDRESS_NOT_FOUND" });
    expect(shipment).toMatchObject({ state: ShipmentState.DELIVERY_FAILED, version: 6n, reasonCode: "ADDRESS_NOT_FOUND" });
  });

  it("refuses a step the state does not allow, changing nothing", async () => {
    const accepted = await offered("STEP-NOT-ALLOWED");
    await step(accepted, DispatchStep.ACCEPT);
    for (const which of [DispatchStep.DELIVER, DispatchStep.START_LAST_LEG, DispatchStep.ACCEPT, DispatchStep.REOFFER, DispatchStep.UNRESOLVED]) {
      expect(await failure(step(accepted, which))).toMatchObject(notAllowed);
    }
    expect(await rowOf(accepted)).toEqual({ state: "ACCEPTED", version: "3", reason_code: null });

    const ready = await created("STEP-READY");
    for (const which of [DispatchStep.REOFFER, DispatchStep.UNRESOLVED, DispatchStep.ACCEPT, DispatchStep.PICK_UP]) {
      expect(await failure(step(ready, which))).toMatchObject(notAllowed);
    }

    const cancelled = await created("STEP-CANCELLED");
    await stack.client.cancelShipment({ merchantId, shipmentId: cancelled, reasonCode: "CUSTOMER_REQUEST", idempotency: { ...idempotency(cancelled, "cancel"), clientId: "" } });
    for (const which of [DispatchStep.REOFFER, DispatchStep.UNRESOLVED, DispatchStep.ACCEPT, DispatchStep.PICK_UP, DispatchStep.START_LAST_LEG, DispatchStep.DELIVER]) {
      expect(await failure(step(cancelled, which))).toMatchObject(notAllowed);
    }
    expect(await failure(step(cancelled, DispatchStep.FAIL, { reasonCode: "LATE" }))).toMatchObject(notAllowed);
    expect(await rowOf(cancelled)).toEqual({ state: "CANCELLED", version: "2", reason_code: "CUSTOMER_REQUEST" });
    expect(await eventsOf(cancelled)).toHaveLength(2);
  });

  it("refuses a stale expected version with VERSION_MISMATCH", async () => {
    const id = await offered("STEP-STALE");
    for (const expectedVersion of [1n, 3n]) {
      expect(await failure(step(id, DispatchStep.ACCEPT, { expectedVersion }))).toMatchObject({ code: Code.Aborted, reason: "VERSION_MISMATCH" });
    }
    expect(await rowOf(id)).toEqual({ state: "OFFERED", version: "2", reason_code: null });
    expect(await eventsOf(id)).toHaveLength(2);
    expect((await step(id, DispatchStep.ACCEPT, { expectedVersion: 2n })).shipment?.version).toBe(3n);
  });

  it("answers NotFound for an unknown shipment and InvalidArgument without a step", async () => {
    for (const id of [randomUUID(), "not-a-uuid"]) {
      expect(await failure(step(id, DispatchStep.ACCEPT))).toMatchObject({ code: Code.NotFound, reason: "SHIPMENT_NOT_FOUND" });
    }
    const id = await offered("STEP-UNSPECIFIED");
    expect(await violationsOf(step(id, DispatchStep.UNSPECIFIED))).toEqual([{ field: "step", code: "REQUIRED", params: {} }]);
    expect(await failure(step(id, 99 as DispatchStep))).toMatchObject({ code: Code.InvalidArgument, reason: "VALIDATION_FAILED" });
  });

  it("refuses a cancel racing an ACCEPT on an OFFERED shipment with SHIPMENT_ALREADY_ASSIGNED", async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => offered(`STEP-RACE-${i}`)));
    const outcome = (call: Promise<unknown>) => call.then(() => "won", async (error: unknown) => (await failure(Promise.reject(error))).reason ?? "?");
    const results = await Promise.all(
      ids.map(async (id, i) => {
        const cancel = () =>
          stack.client.cancelShipment({ merchantId, shipmentId: id, reasonCode: "CUSTOMER_REQUEST", idempotency: { ...idempotency(id, "cancel"), clientId: "" } });
        const accept = () => step(id, DispatchStep.ACCEPT, { expectedVersion: 2n });
        // Half the pairs send the cancel first, half the acceptance.
        const [c, a] = i % 2 ? await Promise.all([outcome(cancel()), outcome(accept())]) : (await Promise.all([outcome(accept()), outcome(cancel())])).reverse();
        return { cancel: c, accept: a };
      }),
    );
    expect(results).toEqual(ids.map(() => ({ cancel: "SHIPMENT_ALREADY_ASSIGNED", accept: "won" })));
    const rows = await query<{ state: string; version: string }>(stack.databaseUrl, "SELECT state::text, version::text FROM shipment WHERE id = ANY($1::uuid[])", ids);
    expect(rows).toEqual(ids.map(() => ({ state: "ACCEPTED", version: "3" })));
    const [events] = await query<{ n: number }>(stack.databaseUrl, "SELECT count(*)::int AS n FROM outbox_event WHERE key = ANY($1)", ids);
    expect(events?.n).toBe(ids.length * 3);
  });
});
