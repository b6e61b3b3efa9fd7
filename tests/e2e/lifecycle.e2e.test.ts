import { randomUUID } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { PublicStatus } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { laneBrokers } from "./support/lane";
import { BRISK_DELIVERIES, startTestMesh, type TestMesh } from "./support/test-mesh";
import { SHIPMENT_EVENTS_TOPIC } from "@tawsil/topology";

/**
 * The sandbox fleet carries a shipment created through the gateway all the way to DELIVERED, with
 * no manual step (issue 6): the public statuses in order and strictly increasing versions.
 */
const brokers = laneBrokers();
let testMesh: TestMesh;

beforeAll(async () => {
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers,
    fleetEnv: BRISK_DELIVERIES,
  });
}, 180_000);
afterAll(async () => testMesh?.close());

const PUBLIC = ["", "CREATED", "ASSIGNED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED", "FAILED", "CANCELLED"];

describe("the sandbox fleet", () => {
  it("delivers a shipment created through the gateway by itself", async () => {
    const { credentials } = testMesh;
    const merchant = testMesh.sdkFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
    const created = await merchant.shipments.create({
      reference: `FLEET-${randomUUID().slice(0, 8)}`,
      pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION! },
      destination: { latitude: 24.774265, longitude: 46.738586 },
      recipient: { name: "Huda", mobile: "0512345600" },
    });
    expect(created.replayed).toBe(false);
    const { id } = created.shipment;

    let state = "";
    const states: string[] = [];
    const deadline = Date.now() + 150_000;
    while (state !== "DELIVERED" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      const read = await merchant.shipments.get(id);
      state = read.notModified ? state : read.shipment.state;
      states.push(state);
    }
    expect({ state, seen: [...new Set(states)] }).toMatchObject({ state: "DELIVERED" });

    const kafka = new Kafka({ clientId: "e2e-lifecycle", brokers: [...brokers], logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: `e2e-lifecycle-${randomUUID()}` });
    const events: { version: number; status: PublicStatus; changed: boolean }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topics: [SHIPMENT_EVENTS_TOPIC], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const event = fromBinary(ShipmentChangedSchema, message.value ?? new Uint8Array());
        if (event.shipment?.shipmentId === id) events.push({ version: Number(event.shipment.version), status: event.shipment.publicStatus, changed: event.publicStatusChanged });
      },
    });
    const until = Date.now() + 30_000;
    while (!events.some((e) => e.status === PublicStatus.DELIVERED) && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    await consumer.disconnect();

    expect(events.filter((e) => e.changed).map((e) => PUBLIC[e.status])).toEqual(["CREATED", "ASSIGNED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED"]);
    const versions = events.map((e) => e.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
  }, 240_000);

  // decisions.md section 4: offered no earlier than 45 minutes (PICKUP_OFFER_LEAD_MS) before the
  // pickup window, so with the fleet on, which takes any offered shipment at once, it stays cancellable.
  it("leaves a shipment whose pickup window starts in two hours unoffered, and cancels it (200)", async () => {
    const { credentials, gatewayUrl } = testMesh;
    const merchant = testMesh.sdkFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
    const start = new Date(Date.now() + 2 * 3_600_000);
    const created = await merchant.shipments.create({
      reference: `LATER-${randomUUID().slice(0, 8)}`,
      pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION! },
      destination: { latitude: 24.774265, longitude: 46.738586 },
      recipient: { name: "Huda", mobile: "0512345600" },
      pickupWindow: { start: start.toISOString(), end: new Date(start.getTime() + 3_600_000).toISOString() },
    });
    const { id } = created.shipment;
    // The fleet took the other shipment within a second of its create; this one it is never offered.
    await new Promise((r) => setTimeout(r, 3_000));
    const read = await merchant.shipments.get(id);
    expect(read.notModified ? undefined : read.shipment.state).toBe("READY_FOR_DISPATCH");
    const token = await testMesh.tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
    const cancel = await fetch(`${gatewayUrl}/v2/external/shipments/${id}/cancel`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ reason: "CUSTOMER_REQUEST" }),
    });
    expect(cancel.status).toBe(200);
    expect(await cancel.json()).toMatchObject({ id, status: "CANCELLED" });
  }, 60_000);
});
