import { createLogger } from "@tawsil/logging";
import { describe, expect, it } from "vitest";
import { systemClock } from "../infra/system-clock";
import { CITY_CENTRES } from "../domain/geo";
import type { ServicePair } from "../domain/service-pair";
import { Fleet } from "./fleet";
import { RefusedError, type DriverApp, type FleetAdmin, type FleetDriverAccount, type Offer, type PairDemandReport } from "./ports";

const BIKES = { cityCode: "RUH", carrierCode: "SAQR", vehicle: "BIKE" } as const;
/** A city the fleet has no centre for: never staffed. */
const NOWHERE = { cityCode: "XXX", carrierCode: "SAQR", vehicle: "BIKE" } as const;
const demandOf = (waiting: number, waitingRecent = 0): PairDemandReport[] => [{ ...BIKES, onShift: 2, free: 0, waiting, waitingRecent }, { ...NOWHERE, onShift: 0, free: 0, waiting: 9, waitingRecent: 9 }];

/** Dispatch's, merchant's and shipment's admin listeners as the fleet sees them, recording what it asks. */
function fakeAdmin(listed: { name: string; onShift: boolean }[], busyDemand = demandOf(3)) {
  const seen = { rotated: [] as string[], onboarded: [] as string[], demands: 0 };
  const account = (driverId: string, name: string, pair: ServicePair = BIKES): FleetDriverAccount => ({ driverId, name, pair, clientId: `client-${driverId}`, clientSecret: "secret" });
  const admin: FleetAdmin = {
    listFleetDrivers: async () => listed.map(({ name, onShift }) => ({ driverId: `id ${name}`, name, onShift, pair: BIKES })),
    onboard: async (name, pair) => (seen.onboarded.push(name), account(`id ${name}`, name, pair)),
    rotate: async (driver) => (seen.rotated.push(driver.name), account(driver.driverId, driver.name)),
    demand: async () => (seen.demands++ === 0 ? demandOf(0) : busyDemand),
    deliveryPin: async () => "0000",
  };
  return { admin, seen };
}

/** Each driver is offered a shipment once the test says so, and its acceptance hangs until the test lets it fail. */
function fakeApps() {
  const offered: ((offers: Offer[]) => void)[] = [];
  const accepting: (() => void)[] = [];
  const appFor = (_account: FleetDriverAccount): DriverApp => ({
    setOnShift: async () => {},
    reportFixes: async () => {},
    offers: (_wait, signal) =>
      new Promise((resolve) => {
        offered.push(resolve);
        signal.addEventListener("abort", () => resolve([]));
      }),
    accept: () => new Promise((_, reject) => accepting.push(() => reject(new RefusedError(409, "OFFER_NOT_OPEN")))),
    jobs: async () => [],
    reportStep: async () => {},
    uploadEvidence: async () => "asset",
  });
  const offer = (shipmentId: string): Offer => ({ offerId: shipmentId, shipmentId, pickup: { latitudeMicro: 24_700_000, longitudeMicro: 46_600_000 }, destination: { latitudeMicro: 24_710_000, longitudeMicro: 46_610_000 }, requirements: [], codAmount: 0 });
  return { appFor, offerToAll: () => offered.splice(0).forEach((resolve, i) => resolve([offer(`s${i}`)])), refuseAll: () => accepting.splice(0).forEach((reject) => reject()) };
}

const until = async (probe: () => boolean) => {
  for (let i = 0; i < 200 && !probe(); i++) await new Promise((r) => setTimeout(r, 10));
};

function fleetOf(admin: FleetAdmin, appFor: (account: FleetDriverAccount) => DriverApp, rules = { baseline: 2, cap: 5, reserve: 0, recentMs: 60_000, idleOffShiftMs: 60_000 }, cities: readonly string[] = Object.keys(CITY_CENTRES)) {
  const noop = () => {};
  return new Fleet({
    cities: new Set(cities),
    admin,
    appFor,
    rules,
    driving: { speedKmh: 600, failureRate: 0, tickMs: 250, fixIntervalMs: 2_000, acceptDelayMs: 0, random: Math.random },
    clock: systemClock,
    logger: createLogger({ service: "fleet-test", level: "silent" }),
    metrics: { driversOnShift: noop, driversBusy: noop, deliveryFinished: noop, demandPolled: noop, reserveCalled: noop },
  });
}

describe("the fleet", () => {
  it("resumes its drivers left on shift, reuses its registered ones by name before registering any, and staffs only cities with a centre", async () => {
    const { admin, seen } = fakeAdmin([{ name: "Sandbox SAQR BIKE RUH 1", onShift: false }, { name: "Sandbox SAQR BIKE RUH 3", onShift: true }, { name: "Noura", onShift: false }]);
    const fleet = fleetOf(admin, fakeApps().appFor);
    await fleet.start();
    expect(seen).toEqual({ rotated: ["Sandbox SAQR BIKE RUH 3", "Sandbox SAQR BIKE RUH 1"], onboarded: [], demands: 1 });
    expect(fleet.onDuty).toBe(true);
    await fleet.close();
  });

  it("staffs only the cities it is given", async () => {
    const vans = { cityCode: "JED", carrierCode: "SAQR", vehicle: "VAN" } as const;
    const { admin, seen } = fakeAdmin([]);
    admin.demand = async () => [{ ...BIKES, onShift: 0, free: 0, waiting: 0, waitingRecent: 0 }, { ...vans, onShift: 0, free: 0, waiting: 0, waitingRecent: 0 }];
    const jeddahToo = fleetOf(admin, fakeApps().appFor);
    await jeddahToo.start();
    await jeddahToo.close();
    expect(seen.onboarded).toEqual(["Sandbox SAQR BIKE RUH 1", "Sandbox SAQR BIKE RUH 2", "Sandbox SAQR VAN JED 1", "Sandbox SAQR VAN JED 2"]);
    seen.onboarded.length = 0;
    const riyadhOnly = fleetOf(admin, fakeApps().appFor, undefined, ["RUH"]);
    await riyadhOnly.start();
    await riyadhOnly.close();
    expect(seen.onboarded).toEqual(["Sandbox SAQR BIKE RUH 1", "Sandbox SAQR BIKE RUH 2"]);
  });

  it("asks for the demand only once its pair's drivers are all busy, and registers one driver per waiting job under the lowest free names", async () => {
    const { admin, seen } = fakeAdmin([{ name: "Sandbox SAQR BIKE RUH 2", onShift: false }]);
    const apps = fakeApps();
    const fleet = fleetOf(admin, apps.appFor);
    await fleet.start();
    expect(seen.onboarded).toEqual(["Sandbox SAQR BIKE RUH 1"]);
    await new Promise((r) => setTimeout(r, 1_100));
    expect(seen.demands).toBe(1);
    apps.offerToAll();
    await until(() => seen.onboarded.length === 4);
    expect(seen.demands).toBe(2);
    expect(seen.onboarded).toEqual(["Sandbox SAQR BIKE RUH 1", "Sandbox SAQR BIKE RUH 3", "Sandbox SAQR BIKE RUH 4", "Sandbox SAQR BIKE RUH 5"]);
    apps.refuseAll();
    await fleet.close();
  });

  it("at its cap, asks on while all are busy and calls a reserve driver per recent job waiting, never more than the reserve", async () => {
    const { admin, seen } = fakeAdmin([], demandOf(5_000, 4));
    const apps = fakeApps();
    const fleet = fleetOf(admin, apps.appFor, { baseline: 2, cap: 2, reserve: 3, recentMs: 60_000, idleOffShiftMs: 60_000 });
    await fleet.start();
    expect(seen.onboarded).toHaveLength(2);
    apps.offerToAll();
    await until(() => seen.onboarded.length === 5);
    expect(seen.onboarded).toEqual(["Sandbox SAQR BIKE RUH 1", "Sandbox SAQR BIKE RUH 2", "Sandbox SAQR BIKE RUH 3", "Sandbox SAQR BIKE RUH 4", "Sandbox SAQR BIKE RUH 5"]);
    // Four recent jobs wait, but three reserve drivers are the most a pair calls at once.
    await new Promise((r) => setTimeout(r, 1_200));
    expect(seen.onboarded).toHaveLength(5);
    apps.refuseAll();
    await fleet.close();
  });
});

