import { randomUUID } from "node:crypto";
import { DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import { createPeerClient } from "@tawsil/rpc";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { eventually } from "./stack";
import { createDispatchDatabase, query, startTestService, type TestService } from "./support";

/**
 * Eligibility needs a driver on shift (decisions.md section 2), answered from each replica's
 * memory: the replica that takes a shift change answers with it at once, another replica once
 * the change's notification reaches it; neither restarts.
 */
let db: Awaited<ReturnType<typeof createDispatchDatabase>>;
let first: TestService;
let second: TestService;

/** Makkah's only cold-chain service (seeded catalogue): the one service that can carry COLD_CHAIN there. */
const COLD_CHAIN_IN_MAKKAH = { cityCode: "MKK", parcel: { totalWeightGrams: 20_000n, longestSideMm: 0, requirements: ["COLD_CHAIN"], cashOnDelivery: false } };
/** 1 kg in Makkah: every service there can carry it. */
const SMALL_IN_MAKKAH = { cityCode: "MKK", parcel: { totalWeightGrams: 1_000n, longestSideMm: 0, requirements: [], cashOnDelivery: false } };

beforeAll(async () => {
  db = await createDispatchDatabase(inject("databaseAdminUrl"), "drivers");
  [first, second] = await Promise.all([startTestService(db.url), startTestService(db.url)]);
});

afterAll(async () => {
  await first?.close();
  await second?.close();
  await db?.drop();
});

/** An off-shift driver of the service that carries `query` at `level` in Makkah. */
async function offShiftDriver(level: "BIKE" | "COLD_CHAIN_VAN"): Promise<string> {
  const id = randomUUID();
  await query(
    db.url,
    `INSERT INTO driver (id, carrier_service_id, city_code, name, updated_at)
     SELECT $1::uuid, s.id, 'MKK', 'Test driver', now() FROM carrier_service s JOIN carrier c ON c.id = s.carrier_id
      WHERE c.active AND s.active AND s.service_level = $2::service_level AND 'MKK' = ANY(s.cities) LIMIT 1`,
    id,
    level,
  );
  return id;
}

describe("eligibility and drivers on shift", () => {
  it("refuses an eligible service with no driver on shift, and accepts once one goes on shift, on both replicas", async () => {
    const driverId = await offShiftDriver("COLD_CHAIN_VAN");
    expect(await first.dispatch.checkEligibility(COLD_CHAIN_IN_MAKKAH)).toMatchObject({ eligible: false, serviceLevel: ServiceLevel.UNSPECIFIED });
    expect(await second.dispatch.checkEligibility(COLD_CHAIN_IN_MAKKAH)).toMatchObject({ eligible: false });

    const drivers = createPeerClient(DriverService, first.url);
    await drivers.setAvailability({ driverId, available: true });
    // The replica that took the change answers with it as soon as the call returns.
    expect(await first.dispatch.checkEligibility(COLD_CHAIN_IN_MAKKAH)).toMatchObject({ eligible: true, serviceLevel: ServiceLevel.COLD_CHAIN_VAN });
    // The other learns it from the change's notification.
    await eventually(async () => ((await second.dispatch.checkEligibility(COLD_CHAIN_IN_MAKKAH)).eligible ? true : undefined), "the second replica to see the driver", 10_000);

    await drivers.setAvailability({ driverId, available: false });
    expect(await first.dispatch.checkEligibility(COLD_CHAIN_IN_MAKKAH)).toMatchObject({ eligible: false });
    await eventually(async () => ((await second.dispatch.checkEligibility(COLD_CHAIN_IN_MAKKAH)).eligible ? undefined : true), "the second replica to see the driver leave", 10_000);
  });

  it("answers with the smallest level that has a driver on shift, not the smallest eligible", async () => {
    const van = await offShiftDriver("COLD_CHAIN_VAN");
    const bike = await offShiftDriver("BIKE");
    const drivers = createPeerClient(DriverService, first.url);
    await drivers.setAvailability({ driverId: van, available: true });
    expect(await first.dispatch.checkEligibility(SMALL_IN_MAKKAH)).toMatchObject({ eligible: true, serviceLevel: ServiceLevel.COLD_CHAIN_VAN });
    await drivers.setAvailability({ driverId: bike, available: true });
    expect(await first.dispatch.checkEligibility(SMALL_IN_MAKKAH)).toMatchObject({ eligible: true, serviceLevel: ServiceLevel.BIKE });
  });

  it("counts a busy driver as on shift", async () => {
    const driverId = await offShiftDriver("COLD_CHAIN_VAN");
    await query(db.url, `UPDATE driver SET available = false WHERE city_code = 'MKK'`);
    await query(db.url, `UPDATE driver SET current_shipment_id = $2::uuid WHERE id = $1::uuid`, driverId, randomUUID());
    const drivers = createPeerClient(DriverService, second.url);
    await drivers.setAvailability({ driverId, available: true });
    expect(await second.dispatch.checkEligibility(COLD_CHAIN_IN_MAKKAH)).toMatchObject({ eligible: true, serviceLevel: ServiceLevel.COLD_CHAIN_VAN });
  });
});
