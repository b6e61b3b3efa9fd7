import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { DriverAdminService } from "@tawsil/proto/tawsil/dispatch/v1/driver_admin_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { query, RIYADH, seedShipments } from "../../packages/testing/src/seed/seed";
import { laneBrokers } from "./support/lane";
import { BRISK_DELIVERIES, startTestMesh, type TestMesh } from "./support/test-mesh";

/**
 * Issue 30, the sandbox fleet as a driver like any other (decisions.md section 17): its own process
 * (services/sandbox-fleet): every delivery here is driven over HTTP by the fleet's drivers with
 * their own credentials. Shipments with each requirement of the
 * catalogue reach DELIVERED unaided, with the PIN entered, the evidence in shape B's timelineMedia
 * and the COD amount handed over; a restarted fleet finds its drivers again instead of registering more.
 */
let testMesh: TestMesh;
let token = "";
/** The fleet's drivers on shift once it is ready: FLEET_DRIVERS_PER_SERVICE (1) per pair. */
let baseline = 0;

beforeAll(async () => {
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    fleet: true,
    // One driver per pair to begin with, and extras off shift 5 s after their last job, so the
    // growth test outgrows Riyadh's drivers with a few shipments and sees the fleet shrink back; a
    // cap of 3 that a backlog reaches at once, so the backlog test is at the cap. Nothing here is
    // about the drive itself, which took most of this file's five minutes at 600 km/h.
    fleetEnv: { ...BRISK_DELIVERIES, FLEET_DRIVERS_PER_SERVICE: "1", FLEET_MAX_DRIVERS_PER_SERVICE: "3", FLEET_IDLE_OFF_SHIFT_MS: "5000" },
  });
  const { credentials } = testMesh;
  token = await testMesh.tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
  baseline = await fleetMetric("sandbox_fleet_drivers_on_shift");
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

/** One of the fleet's own figures, from its /metrics. */
async function fleetMetric(name: string): Promise<number> {
  const fleet = testMesh.mesh.processes.find((p) => p.name === "sandbox-fleet")!;
  const text = await (await fetch(`${fleet.metricsUrl}/metrics`)).text();
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
}

async function until(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await probe())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(500);
  }
  return Date.now() - started;
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

  it("brings drivers on shift while a pair's are all busy and jobs wait, then back to the baseline once they idle", async () => {
    expect(baseline).toBeGreaterThan(0);
    await until("the fleet back to its baseline", 60_000, async () => (await fleetMetric("sandbox_fleet_drivers_on_shift")) === baseline);
    const polls = await fleetMetric("sandbox_fleet_demand_polls_total");
    // More shipments than Riyadh has drivers on shift (one per pair, any of which may be eligible).
    const riyadhPairs = new Set((await fleetDrivers()).filter((name) => name.includes(" RUH ")).map((name) => name.replace(/ \d+$/, ""))).size;
    const created = await Promise.all(Array.from({ length: riyadhPairs + 4 }, () => create([])));
    let peak = baseline;
    // Offered and accepted: more than the drivers on shift could take at once.
    const assignedIn = await until("every shipment accepted by a driver", 60_000, async () => {
      peak = Math.max(peak, await fleetMetric("sandbox_fleet_drivers_on_shift"));
      const states = await Promise.all(created.map(async (shipment) => (await read(shipment.shipmentId)).state));
      return states.every((state) => !["READY_FOR_DISPATCH", "OFFERED", "DISPATCH_UNRESOLVED"].includes(state));
    });
    expect(assignedIn).toBeLessThan(30_000);
    expect(peak).toBeGreaterThan(baseline);
    expect(await fleetMetric("sandbox_fleet_demand_polls_total")).toBeGreaterThan(polls);
    for (const shipment of created) expect((await finished(shipment.shipmentId)).state).toBe("DELIVERED");
    await until("the extras off shift again", 60_000, async () => (await fleetMetric("sandbox_fleet_drivers_on_shift")) === baseline);
  }, 300_000);

  it("finds its own drivers again after a restart (no new registrations), one left without a client by an onboarding cut short among them, and delivers on", async () => {
    const before = await fleetDrivers();
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((name) => /^Sandbox \S+ \S+ [A-Z]{3} \d+$/.test(name))).toBe(true);
    // A fleet stopped between an onboarding's two calls leaves a driver registered with dispatch and
    // no client at the merchant service: rotating its secret fails. The restarted fleet issues it one.
    const dispatchAdmin = createPeerClient(DriverAdminService, testMesh.mesh.processes.find((p) => p.name === "dispatch")!.adminUrl!, { timeoutMs: 10_000 });
    const cut = (await dispatchAdmin.listDrivers({ limit: 1000, sandboxFleet: true })).drivers.find((driver) => driver.onShift)!;
    const clientsOf = async (driverId: string) => (await query<{ n: number }>(testMesh.databaseUrls.merchant, "SELECT count(*)::int AS n FROM driver_client WHERE driver_id = $1::uuid", [driverId]))[0]!.n;
    await query(testMesh.databaseUrls.merchant, "DELETE FROM driver_client WHERE driver_id = $1::uuid", [cut.driverId]);
    await testMesh.mesh.restart("sandbox-fleet");
    const shipment = await create(["SIGNATURE_ON_DELIVERY"]);
    expect((await finished(shipment.shipmentId)).state).toBe("DELIVERED");
    expect(await fleetDrivers()).toEqual(before);
    await until("the driver left without a client issued one", 30_000, async () => (await clientsOf(cut.driverId)) === 1);
  }, 240_000);

  it("offers a shipment created behind 5,000 waiting within 10 s, the fleet at its cap: a reserve driver comes on shift for it", async () => {
    // 5,000 shipments waiting in Riyadh, ten minutes old, written as the bench writes its backlog
    // (shipments and their dispatch jobs), then dispatch restarted as after a deploy: its first sweep
    // gives every free driver a backlog job, and the fleet grows to its cap (3 here) on that demand.
    const merchantId = decodeJwt(token).merchant_id as string;
    const rows = await seedShipments(testMesh.databaseUrls.shipment, {
      merchantId, count: 5_000, state: "READY_FOR_DISPATCH", version: 2, cityCode: "RUH", at: RIYADH,
      newest: new Date(Date.now() - 600_000), spacingSeconds: 0.1, firstNumber: 9_000_000_000, referencePrefix: "FLEET-BACKLOG-",
    });
    const column = (key: keyof (typeof rows)[number]) => rows.map((row) => row[key]);
    const jobsSql = readFileSync(path.resolve(import.meta.dirname, "../../packages/testing/src/seed/dispatch-jobs.sql"), "utf8");
    await query(testMesh.databaseUrls.dispatch, jobsSql, [column("id"), column("created_at"), column("pickup_latitude_micro"), column("pickup_longitude_micro"), column("destination_latitude_micro"), column("destination_longitude_micro"), merchantId, "RUH", "WAITING", 2]);
    // The bench's jobs name no level (its city has none); these wait for the smallest, as a small parcel's would.
    await query(testMesh.databaseUrls.dispatch, "UPDATE dispatch_job SET service_level = 'BIKE' WHERE service_level IS NULL", []);
    await testMesh.mesh.restart("dispatch");
    const waiting = async () => (await query<{ n: number }>(testMesh.databaseUrls.dispatch, "SELECT count(*)::int AS n FROM dispatch_job WHERE state = 'WAITING'", []))[0]!.n;
    // Every Riyadh driver busy (the fleet grown past its baseline there), the backlog still there.
    const adminUrl = testMesh.mesh.processes.find((p) => p.name === "dispatch")!.adminUrl!;
    const riyadh = async () => (await createPeerClient(DriverAdminService, adminUrl, { timeoutMs: 10_000 }).getFleetDemand({})).services.filter((s) => s.cityCode === "RUH");
    const riyadhPairs = (await riyadh()).length;
    await until("Riyadh's drivers all busy with the backlog", 60_000, async () => {
      const pairs = await riyadh();
      return pairs.reduce((n, p) => n + p.onShift, 0) > riyadhPairs && pairs.every((p) => p.free === 0);
    });
    expect(await waiting()).toBeGreaterThan(4_900);

    const fresh = await create([]);
    const offeredIn = await until("the new shipment offered", 10_000, async () => (await read(fresh.shipmentId)).state !== "READY_FOR_DISPATCH");
    expect(offeredIn).toBeLessThanOrEqual(10_000);
    // The backlog still waits: the new shipment was not served by clearing it. (Who served it, a
    // reserve driver or one freed meanwhile and given the newest, is a race: not asserted.)
    expect(await waiting()).toBeGreaterThan(4_900);
  }, 240_000);
});
