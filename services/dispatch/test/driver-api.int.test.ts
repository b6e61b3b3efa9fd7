import { createHash, randomUUID } from "node:crypto";
import { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import { DriverAdminService } from "@tawsil/proto/tawsil/dispatch/v1/driver_admin_service_pb";
import { Progress } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { createPeerClient } from "@tawsil/rpc";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AL_OLAYA, eventually, startDispatchStack, type DispatchStack } from "./stack";
import { Code, failure, query } from "./support";

/** Issue 30: operators register production drivers; a driver's steps run once per Idempotency-Key. */
let stack: DispatchStack;
let admin: ReturnType<typeof createPeerClient<typeof DriverAdminService>>;

beforeAll(async () => {
  stack = await startDispatchStack(inject("databaseAdminUrl"), inject("kafkaBrokers"), "driverapi", { DISPATCHER_SAFETY_NET_MS: "600000" });
  admin = createPeerClient(DriverAdminService, stack.dispatch.adminUrl!, { timeoutMs: 10_000 });
});

afterAll(async () => {
  await stack?.close();
});

const fingerprint = (text: string) => createHash("sha256").update(text).digest("hex");

async function registeredOnShift(name: string): Promise<string> {
  const { driver } = await admin.registerDriver({ name, cityCode: "RUH", carrierCode: "SAQR", vehicle: ServiceLevel.BIKE });
  await stack.drivers.setAvailability({ driverId: driver!.driverId, available: true, position: AL_OLAYA });
  return driver!.driverId;
}

/** A shipment offered to and accepted by `driverId` (the only free driver of the test at a time). */
async function acceptedBy(driverId: string, reference: string): Promise<string> {
  const shipmentId = await stack.createShipment(reference);
  const offer = await eventually(async () => (await stack.drivers.listOffers({ driverId })).offers.find((o) => o.shipmentId === shipmentId), "the offer");
  expect(offer).toMatchObject({ cityCode: "RUH", requirements: [], cashOnDelivery: false });
  expect(offer.weightGrams).toBeGreaterThan(0);
  await stack.drivers.acceptOffer({ driverId, offerId: offer.offerId });
  return shipmentId;
}

const versionOf = async (shipmentId: string) => (await stack.shipments.client.getShipment({ merchantId: stack.merchantId, shipmentId })).shipment!;

describe("the driver registry", () => {
  it("registers a driver off shift, lists it (never the sandbox fleet's), and takes it off shift", async () => {
    const { driver } = await admin.registerDriver({ name: "Registry Driver", cityCode: "RUH", carrierCode: "SAQR", vehicle: ServiceLevel.CAR });
    expect(driver).toMatchObject({ name: "Registry Driver", cityCode: "RUH", carrierCode: "SAQR", vehicle: ServiceLevel.CAR, onShift: false });
    await stack.drivers.setAvailability({ driverId: driver!.driverId, available: true });
    const listed = (await admin.listDrivers({ limit: 0 })).drivers;
    expect(listed.find((d) => d.driverId === driver!.driverId)?.onShift).toBe(true);
    await query(stack.dispatchDb.url, `INSERT INTO driver (id, carrier_service_id, city_code, name, simulated, updated_at) SELECT gen_random_uuid(), carrier_service_id, city_code, 'Simulated', true, now() FROM driver WHERE id = $1::uuid`, driver!.driverId);
    expect((await admin.listDrivers({ limit: 0 })).drivers.map((d) => d.name)).not.toContain("Simulated");
    expect((await admin.takeDriverOffShift({ driverId: driver!.driverId })).driver?.onShift).toBe(false);
  });

  it("registers the sandbox fleet's drivers apart, lists them only when asked, and tells the fleet its demand", async () => {
    const { driver } = await admin.registerDriver({ name: "Sandbox SAQR VAN RUH 1", cityCode: "RUH", carrierCode: "SAQR", vehicle: ServiceLevel.VAN, sandboxFleet: true });
    const id = driver!.driverId;
    expect((await admin.listDrivers({ limit: 0 })).drivers.map((d) => d.driverId)).not.toContain(id);
    expect((await admin.listDrivers({ limit: 0, sandboxFleet: true })).drivers.map((d) => d.driverId)).toContain(id);

    const bikesOfRiyadh = async (recentMs = 0) => (await admin.getFleetDemand({ recentMs })).services.find((s) => s.cityCode === "RUH" && s.carrierCode === "SAQR" && s.vehicle === ServiceLevel.BIKE)!;
    const jobState = async (shipmentId: string) => (await query<{ state: string }>(stack.dispatchDb.url, `SELECT state::text AS state FROM dispatch_job WHERE shipment_id = $1::uuid`, shipmentId))[0]?.state;
    /*
     * Riyadh's bike demand beside dispatch's table. Every stack's shipments go to one topic, and this
     * stack's consumer reads it from the beginning, so other files' shipments become jobs here too
     * and the counts move on their own: a demand read counts only when the table held the same
     * before and after it. `counted`: whether the jobs counted are the table's and hold this test's.
     */
    const waitingBikes = async (recentMs: number, shipmentId: string) =>
      (
        await query<{ waiting: number; recent: number; ours: number }>(
          stack.dispatchDb.url,
          `SELECT count(*)::int AS waiting, count(*) FILTER (WHERE created_at >= now() - make_interval(secs => $1::int / 1000.0))::int AS recent,
                  count(*) FILTER (WHERE shipment_id = $2::uuid)::int AS ours
             FROM dispatch_job WHERE city_code = 'RUH' AND service_level = 'BIKE' AND state IN ('WAITING', 'UNRESOLVED') AND (offerable_at IS NULL OR offerable_at <= now())`,
          recentMs,
          shipmentId,
        )
      )[0]!;
    const settledDemand = (recentMs: number, shipmentId: string) =>
      eventually(async () => {
        const before = await waitingBikes(recentMs, shipmentId);
        const demand = await bikesOfRiyadh(recentMs);
        const after = await waitingBikes(recentMs, shipmentId);
        if (before.waiting !== after.waiting || before.recent !== after.recent || demand.waiting !== after.waiting) return undefined;
        return { demand, recentInTable: after.recent, counted: after.ours === 1 };
      }, "a demand read while dispatch's table held still");
    const vansOfRiyadh = async () => (await admin.getFleetDemand({})).services.find((s) => s.cityCode === "RUH" && s.carrierCode === "SAQR" && s.vehicle === ServiceLevel.VAN);
    const before = await vansOfRiyadh();
    await stack.drivers.setAvailability({ driverId: id, available: true, position: AL_OLAYA });
    expect(await vansOfRiyadh()).toMatchObject({ onShift: before!.onShift + 1, free: before!.free + 1 });
    // Every active service in every city it covers is listed, staffed or not: Saqr's vans skip Makkah.
    const services = (await admin.getFleetDemand({})).services;
    expect(services.some((s) => s.cityCode === "MKK" && s.carrierCode === "SAQR" && s.vehicle === ServiceLevel.VAN)).toBe(false);
    expect(services.some((s) => s.cityCode === "RUH" && s.carrierCode === "SAQR" && s.vehicle === ServiceLevel.BIKE)).toBe(true);
    await stack.drivers.setAvailability({ driverId: id, available: false });

    // A job waiting for a level with no free driver counts for that level in its city.
    expect((await bikesOfRiyadh()).free).toBe(0);
    const shipmentId = await stack.createShipment("DEMAND-1");
    await eventually(async () => ((await jobState(shipmentId)) === "WAITING" ? true : undefined), "the job waiting");
    expect(await settledDemand(0, shipmentId)).toMatchObject({ counted: true });
    // Recent: created within the window asked for (the fleet's reserve serves those); none without one.
    await query(stack.dispatchDb.url, `UPDATE dispatch_job SET created_at = now() - interval '10 minutes' WHERE shipment_id <> $1::uuid`, shipmentId);
    const recent = await settledDemand(60_000, shipmentId);
    expect(recent.demand.waitingRecent).toBe(recent.recentInTable);
    expect(recent.recentInTable).toBeGreaterThanOrEqual(1);
    expect((await bikesOfRiyadh(0)).waitingRecent).toBe(0);
    expect((await failure(admin.getFleetDemand({ recentMs: -1 }))).code).toBe(Code.InvalidArgument);
    await stack.shipments.client.cancelShipment({ merchantId: stack.merchantId, shipmentId, reasonCode: "CUSTOMER_REQUEST", idempotency: { key: `cancel-${shipmentId}`, clientId: "", fingerprint: "a".repeat(64) } });
    await eventually(async () => ((await jobState(shipmentId)) === "CANCELLED" ? true : undefined), "the job cancelled");
    expect(await settledDemand(0, shipmentId)).toMatchObject({ counted: false });
  });

  it("refuses an unknown carrier service, a city the service does not cover, and a bad name", async () => {
    expect(await failure(admin.registerDriver({ name: "X", cityCode: "RUH", carrierCode: "NOPE", vehicle: ServiceLevel.CAR }))).toMatchObject({ code: Code.NotFound });
    // Saqr's vans do not serve Makkah (seeded catalogue).
    expect((await failure(admin.registerDriver({ name: "X", cityCode: "MKK", carrierCode: "SAQR", vehicle: ServiceLevel.VAN }))).code).toBe(Code.InvalidArgument);
    expect((await failure(admin.registerDriver({ name: " ", cityCode: "RUH", carrierCode: "SAQR", vehicle: ServiceLevel.CAR }))).code).toBe(Code.InvalidArgument);
    expect((await failure(admin.takeDriverOffShift({ driverId: randomUUID() }))).code).toBe(Code.NotFound);
  });
});

describe("a driver's API", () => {
  it("records a batch of fixes all or none, at most 100", async () => {
    const driverId = await registeredOnShift("Fixes");
    const fix = { position: AL_OLAYA, accuracyMetres: 5, recordTimeUnixMs: 0n };
    // One app's batch, oldest first: every fix recorded, the driver where the latest one puts it.
    const later = { position: { latitudeMicro: AL_OLAYA.latitudeMicro + 500, longitudeMicro: AL_OLAYA.longitudeMicro }, accuracyMetres: 5, recordTimeUnixMs: BigInt(Date.now()) };
    await stack.drivers.reportLocations({ driverId, fixes: [{ ...fix, recordTimeUnixMs: BigInt(Date.now() - 2_000) }, later] });
    const count = async () => Number((await query<{ n: bigint }>(stack.dispatchDb.url, `SELECT count(*) AS n FROM outbox_event WHERE key = $1 AND type LIKE '%DriverLocation'`, driverId))[0]?.n ?? 0);
    expect(await count()).toBe(2);
    expect((await query<{ latitude_micro: number }>(stack.dispatchDb.url, `SELECT latitude_micro FROM driver WHERE id = $1::uuid`, driverId))[0]?.latitude_micro).toBe(later.position.latitudeMicro);
    expect((await failure(stack.drivers.reportLocations({ driverId, fixes: Array.from({ length: 101 }, () => fix) }))).code).toBe(Code.InvalidArgument);
    expect((await failure(stack.drivers.reportLocations({ driverId, fixes: [] }))).code).toBe(Code.InvalidArgument);
    expect(await count()).toBe(2);
    await stack.drivers.setAvailability({ driverId, available: false });
  });

  it("runs a step once per key: concurrent duplicates and a replay answer alike and move the shipment once; another request under the key is refused", async () => {
    const driverId = await registeredOnShift("Steps");
    const shipmentId = await acceptedBy(driverId, `STEP-${randomUUID().slice(0, 8)}`);
    const [job] = (await stack.drivers.listJobs({ driverId })).jobs;
    expect(job?.shipmentId).toBe(shipmentId);
    // The recipient is the driver's to know while the job is active.
    expect(job?.recipientName).not.toBe("");
    // The phone too, learnt from the shipment service at the acceptance (never in the events).
    expect(job?.recipientPhone).toMatch(/^\+9665\d{8}$/);
    const recipientOf = async () =>
      (await query<{ recipient_name: string | null; recipient_phone: string | null }>(stack.dispatchDb.url, `SELECT recipient_name, recipient_phone FROM dispatch_job WHERE shipment_id = $1::uuid`, shipmentId))[0];
    expect(await recipientOf()).toEqual({ recipient_name: job?.recipientName, recipient_phone: job?.recipientPhone });
    const before = (await versionOf(shipmentId)).version;
    const key = `key-${randomUUID()}`;
    const pickUp = { driverId, shipmentId, progress: Progress.PICKED_UP, idempotencyKey: key, requestFingerprint: fingerprint("picked up") };
    await Promise.all([stack.drivers.reportProgress(pickUp), stack.drivers.reportProgress(pickUp), stack.drivers.reportProgress(pickUp)]);
    await stack.drivers.reportProgress(pickUp);
    const after = await versionOf(shipmentId);
    expect(after.state).toBe(ShipmentState.PICKED_UP);
    expect(after.version).toBe(before + 1n);
    expect(await failure(stack.drivers.reportProgress({ ...pickUp, progress: Progress.OUT_FOR_DELIVERY, requestFingerprint: fingerprint("out") }))).toMatchObject({ reason: "IDEMPOTENCY_KEY_REUSED" });

    // A refused step keeps nothing: the same key is free for the next try.
    const early = { driverId, shipmentId, progress: Progress.DELIVERED, idempotencyKey: `key-${randomUUID()}`, requestFingerprint: fingerprint("delivered") };
    expect(await failure(stack.drivers.reportProgress(early))).toMatchObject({ reason: "STEP_NOT_ALLOWED" });
    expect(await query(stack.dispatchDb.url, `SELECT 1 FROM driver_step_request WHERE idempotency_key = $1`, early.idempotencyKey)).toEqual([]);
    await stack.drivers.reportProgress({ driverId, shipmentId, progress: Progress.OUT_FOR_DELIVERY, idempotencyKey: `key-${randomUUID()}`, requestFingerprint: fingerprint("out") });
    await stack.drivers.reportProgress(early);
    expect((await versionOf(shipmentId)).state).toBe(ShipmentState.DELIVERED);
    expect((await stack.drivers.listJobs({ driverId })).jobs).toEqual([]);
    // ...and nobody's once it is done: dispatch forgets the name and phone (the consumer follows the shipment).
    await eventually(async () => ((await recipientOf())?.recipient_name === null ? true : undefined), "the recipient's name forgotten");
    expect(await recipientOf()).toEqual({ recipient_name: null, recipient_phone: null });
    await stack.drivers.setAvailability({ driverId, available: false });
  });

  it("tells another driver's job apart from nothing: NOT_ASSIGNED", async () => {
    const owner = await registeredOnShift("Owner");
    const shipmentId = await acceptedBy(owner, `OWN-${randomUUID().slice(0, 8)}`);
    const { driver: other } = await admin.registerDriver({ name: "Other", cityCode: "RUH", carrierCode: "SAQR", vehicle: ServiceLevel.BIKE });
    expect(await failure(stack.drivers.reportProgress({ driverId: other!.driverId, shipmentId, progress: Progress.PICKED_UP, idempotencyKey: `key-${randomUUID()}`, requestFingerprint: fingerprint("x") }))).toMatchObject({ reason: "NOT_ASSIGNED" });
    expect((await stack.drivers.listJobs({ driverId: other!.driverId })).jobs).toEqual([]);
  });
});
