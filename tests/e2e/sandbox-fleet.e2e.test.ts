import { randomUUID } from "node:crypto";
import { DriverAdminService } from "@tawsil/proto/tawsil/dispatch/v1/driver_admin_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { laneBrokers } from "./support/lane";
import { startTestMesh, type TestMesh } from "./support/test-mesh";

/**
 * Issue 30, the sandbox fleet as a driver like any other (decisions.md section 17): its own process
 * (services/sandbox-fleet), dispatch's in-process fleet off, so every delivery here is driven over
 * HTTP by the fleet's drivers with their own credentials. Shipments with each requirement of the
 * catalogue reach DELIVERED unaided, with the PIN entered, the evidence in shape B's timelineMedia
 * and the COD amount handed over; a restarted fleet finds its drivers again instead of registering more.
 */
let testMesh: TestMesh;
let token = "";

beforeAll(async () => {
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    serviceEnv: { dispatch: { SANDBOX_FLEET_ENABLED: "false" } },
    fleet: true,
    fleetEnv: { FLEET_FAILURE_RATE: "0" },
  });
  const { credentials } = testMesh;
  token = await testMesh.tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
}, 240_000);
afterAll(async () => {
  await testMesh?.close();
});

interface ShapeB {
  shipmentId: string;
  state: string;
  deliveryPin: string | null;
  timelineMedia: { mediaAssetId: string; purpose: string; sortOrder: number }[];
}

const headers = () => ({ authorization: `Bearer ${token}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A create in Riyadh. The fleet's drivers come on shift as the mesh's last step, and pricing learns
 * of them through dispatch's city staffing a moment later: until then a create is refused
 * NO_ELIGIBLE_SERVICE, so that refusal alone is tried again, for at most 30 s.
 */
async function create(requirements: string[], cod?: number): Promise<ShapeB> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const response = await fetch(`${testMesh.gatewayUrl}/v2/external/shipments`, {
      method: "POST",
      headers: { ...headers(), "content-type": "application/json" },
      body: JSON.stringify({
        externalReference: `FLEET-${randomUUID().slice(0, 8)}`,
        pickupLocationCode: testMesh.credentials.TAWSIL_SAVED_LOCATION,
        recipient: { name: "Noura", phone: "+966512345670" },
        destination: { latitude: 24.774265, longitude: 46.738586 },
        items: [{ description: "Abaya", quantity: 1, weightKilograms: 0.5 }],
        requirements,
        ...(cod ? { codAmount: cod } : {}),
      }),
    });
    const body = (await response.json()) as ShapeB & { code?: string };
    if (response.status === 422 && body.code === "NO_ELIGIBLE_SERVICE" && Date.now() < deadline) {
      await sleep(500);
      continue;
    }
    expect(response.status, JSON.stringify(body)).toBe(201);
    return body;
  }
}

async function read(id: string): Promise<ShapeB> {
  const response = await fetch(`${testMesh.gatewayUrl}/v2/external/shipments/${id}`, { headers: headers() });
  expect(response.status).toBe(200);
  return (await response.json()) as ShapeB;
}

async function finished(id: string): Promise<ShapeB> {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const shipment = await read(id);
    if (shipment.state === "DELIVERED" || shipment.state === "DELIVERY_FAILED" || shipment.state === "CANCELLED" || Date.now() > deadline) return shipment;
    await sleep(1_000);
  }
}

/** The fleet's registered drivers, as dispatch's admin listener lists them. */
async function fleetDrivers(): Promise<string[]> {
  const adminUrl = testMesh.mesh.processes.find((p) => p.name === "dispatch")!.adminUrl!;
  const { drivers } = await createPeerClient(DriverAdminService, adminUrl, { timeoutMs: 10_000 }).listDrivers({ limit: 1000, sandboxFleet: true });
  return drivers.map((driver) => driver.name).sort();
}

describe("the sandbox fleet process", () => {
  it("delivers a shipment with each requirement unaided: the PIN entered, the evidence in timelineMedia, the COD amount collected", async () => {
    const [plain, pin, signature, noContact, cod] = await Promise.all([
      create([]),
      create(["PIN_ON_DELIVERY"]),
      create(["SIGNATURE_ON_DELIVERY"]),
      create(["NO_CONTACT"]),
      create([], 75.25),
    ]);
    expect(pin.deliveryPin).toMatch(/^\d{4}$/);
    const outcomes = await Promise.all([plain, pin, signature, noContact, cod].map((shipment) => finished(shipment.shipmentId)));
    expect(outcomes.map((shipment) => shipment.state)).toEqual(["DELIVERED", "DELIVERED", "DELIVERED", "DELIVERED", "DELIVERED"]);
    const [delivered, pinned, signed, photographed, paid] = outcomes;
    expect(signed!.timelineMedia.map((m) => [m.purpose, m.sortOrder])).toEqual([["DELIVERY_SIGNATURE", 0]]);
    expect(photographed!.timelineMedia.map((m) => [m.purpose, m.sortOrder])).toEqual([["DELIVERY_PHOTO", 0]]);
    for (const shipment of [delivered, pinned, paid]) expect(shipment!.timelineMedia).toEqual([]);
  }, 240_000);

  it("finds its own drivers again after a restart (no new registrations) and delivers on", async () => {
    const before = await fleetDrivers();
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((name) => /^Sandbox \S+ \S+ [A-Z]{3} \d+$/.test(name))).toBe(true);
    await testMesh.mesh.restart("sandbox-fleet");
    const shipment = await create(["SIGNATURE_ON_DELIVERY"]);
    expect((await finished(shipment.shipmentId)).state).toBe("DELIVERED");
    expect(await fleetDrivers()).toEqual(before);
  }, 240_000);
});
