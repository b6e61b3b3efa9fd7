import { createLogger } from "@tawsil/logging";
import { describe, expect, it } from "vitest";
import { FleetDriver } from "./fleet-driver";
import { RefusedError, type Clock, type DriverApp, type Fix, type Offer, type Step } from "./ports";

const RUH = { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 };
// About 2.3 km and 7.5 km away: a few seconds each at 600 km/h.
const PICKUP = { latitudeMicro: 24_733_600, longitudeMicro: 46_680_300 };
const DESTINATION = { latitudeMicro: 24_774_265, longitudeMicro: 46_738_586 };

/** Virtual time: a sleep moves the clock on at once, so a whole delivery runs in milliseconds. */
function virtualClock(): Clock {
  let now = 1_000_000;
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      if (!signal?.aborted) now += Math.max(0, ms);
    },
  };
}

type Call = { at: number; what: string; step?: Step; key?: string; fixes?: readonly Fix[] };

/** The driver routes as one driver sees them: offers queued by the test, then a long poll that lasts until the driver stops. */
function fakeApp(clock: Clock, offers: (Offer[] | "empty")[], fail: (call: Call) => Error | undefined = () => undefined): { app: DriverApp; calls: Call[] } {
  const calls: Call[] = [];
  const record = async (call: Omit<Call, "at">) => {
    const full = { at: clock.now(), ...call };
    calls.push(full);
    const error = fail(full);
    if (error) throw error;
  };
  const app: DriverApp = {
    setOnShift: (onShift) => record({ what: onShift ? "on shift" : "off shift" }),
    reportFixes: (fixes) => record({ what: "fixes", fixes }),
    async offers(_wait, signal) {
      await record({ what: "offers" });
      const next = offers.shift();
      if (next === "empty") return [];
      if (next) return next;
      return new Promise((resolve) => signal.addEventListener("abort", () => resolve([])));
    },
    accept: (offerId) => record({ what: `accept ${offerId}` }),
    jobs: async () => [],
    reportStep: (_id, step, key) => record({ what: step.step, step, key }),
    uploadEvidence: async (purpose) => (await record({ what: `upload ${purpose}` }), `asset-${purpose}`),
  };
  return { app, calls };
}

const offer = (over: Partial<Offer> = {}): Offer => ({ offerId: "o1", shipmentId: "s1", pickup: PICKUP, destination: DESTINATION, requirements: [], codAmount: 0, ...over });

function driverWith(app: DriverApp, clock: Clock, over: { failureRate?: number; reserve?: boolean } = {}) {
  const outcomes: string[] = [];
  let ended = 0;
  let settle: () => void = () => {};
  const done = new Promise<void>((resolve) => (settle = resolve));
  const driver = new FleetDriver({ driverId: "d1", name: "Sandbox SAQR BIKE RUH 1", pair: { cityCode: "RUH", carrierCode: "SAQR", vehicle: "BIKE" }, clientId: "c", clientSecret: "s" }, RUH, app, {
    speedKmh: 600,
    failureRate: over.failureRate ?? 0,
    tickMs: 250,
    fixIntervalMs: 2_000,
    acceptDelayMs: 300,
    random: () => 0.5,
    clock,
    logger: createLogger({ service: "fleet-driver-test", level: "silent" }),
    deliveryPin: async () => "4821",
    busyChanged: () => {},
    finished: (outcome) => (outcomes.push(outcome), settle()),
    reserve: over.reserve ?? false,
    shiftEnded: () => ended++,
  });
  return { driver, outcomes, done, shiftsEnded: () => ended };
}

const steps = (calls: Call[]) => calls.filter((c) => c.step).map((c) => c.what);

describe("a fleet driver", () => {
  it("accepts after the delay, drives to the pickup and on, and delivers with the proof its requirements ask for", async () => {
    const clock = virtualClock();
    const { app, calls } = fakeApp(clock, [[offer({ requirements: ["PIN_ON_DELIVERY", "SIGNATURE_ON_DELIVERY"], codAmount: 75.25 })]]);
    const { driver, outcomes, done } = driverWith(app, clock);
    await driver.start();
    await done;
    await driver.stop(true);
    const asked = calls.find((c) => c.what === "offers")!.at;
    expect(calls.find((c) => c.what === "accept o1")!.at - asked).toBe(300);
    expect(steps(calls)).toEqual(["PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED"]);
    expect(calls.find((c) => c.what === "DELIVERED")!.step).toEqual({ step: "DELIVERED", proof: { evidenceMediaAssetIds: ["asset-DELIVERY_SIGNATURE"], deliveryPin: "4821", codCollected: 75.25 } });
    expect(outcomes).toEqual(["DELIVERED"]);
    expect(calls.at(-1)!.what).toBe("off shift");
  });

  it("posts its fixes in batches at most once per interval, except on arrival, ending at the door", async () => {
    const clock = virtualClock();
    const { app, calls } = fakeApp(clock, [[offer()]]);
    const { driver, done } = driverWith(app, clock);
    await driver.start();
    await done;
    await driver.stop(false);
    const posts = calls.filter((c) => c.what === "fixes");
    const arrivals = new Set([PICKUP, DESTINATION].map((p) => posts.findIndex((post) => post.fixes!.at(-1)!.position === p)));
    for (let i = 1; i < posts.length; i++) if (!arrivals.has(i)) expect(posts[i]!.at - posts[i - 1]!.at).toBeGreaterThanOrEqual(2_000);
    expect(posts.every((post) => post.fixes!.length <= 100 && post.fixes!.length >= 1)).toBe(true);
    expect(posts.at(-1)!.fixes!.at(-1)!.position).toEqual(DESTINATION);
  });

  it("fails the configured share of deliveries with RECIPIENT_UNAVAILABLE", async () => {
    const clock = virtualClock();
    const { app, calls } = fakeApp(clock, [[offer()]]);
    const { driver, outcomes, done } = driverWith(app, clock, { failureRate: 1 });
    await driver.start();
    await done;
    await driver.stop(false);
    expect(calls.find((c) => c.what === "DELIVERY_FAILED")!.step).toEqual({ step: "DELIVERY_FAILED", reasonCode: "RECIPIENT_UNAVAILABLE" });
    expect(outcomes).toEqual(["DELIVERY_FAILED"]);
  });

  it("retries a step after an outage on the next tick with the same Idempotency-Key", async () => {
    const clock = virtualClock();
    let failures = 2;
    const { app, calls } = fakeApp(clock, [[offer()]], (call) => (call.what === "PICKED_UP" && failures-- > 0 ? new Error("503") : undefined));
    const { driver, done } = driverWith(app, clock);
    await driver.start();
    await done;
    await driver.stop(false);
    const pickedUp = calls.filter((c) => c.what === "PICKED_UP");
    expect(pickedUp.map((c) => c.key)).toEqual([pickedUp[0]!.key, pickedUp[0]!.key, pickedUp[0]!.key]);
    expect(pickedUp[1]!.at - pickedUp[0]!.at).toBe(250);
    expect(steps(calls)).toEqual(["PICKED_UP", "PICKED_UP", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED"]);
  });

  it("drops a job the API refuses (the shipment moved on) and waits for offers again", async () => {
    const clock = virtualClock();
    const { app, calls } = fakeApp(clock, [[offer()], [offer({ offerId: "o2", shipmentId: "s2" })]], (call) => (call.what === "DELIVERED" && calls.filter((c) => c.what === "DELIVERED").length === 1 ? new RefusedError(404, "JOB_NOT_FOUND") : undefined));
    const { driver, outcomes, done } = driverWith(app, clock);
    await driver.start();
    await done;
    await driver.stop(false);
    expect(steps(calls)).toEqual(["PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED"]);
    expect(calls.filter((c) => c.what === "accept o2")).toHaveLength(1);
    expect(outcomes).toEqual(["DELIVERED"]);
  });

  it("waits out the rest of a long poll answered early and empty, so it never spins", async () => {
    const clock = virtualClock();
    const { app, calls } = fakeApp(clock, ["empty", "empty"]);
    const { driver } = driverWith(app, clock);
    await driver.start();
    for (let i = 0; i < 20 && calls.filter((c) => c.what === "offers").length < 3; i++) await new Promise((r) => setImmediate(r));
    await driver.stop(false);
    const polls = calls.filter((c) => c.what === "offers").map((c) => c.at);
    expect(polls.slice(0, 3)).toEqual([polls[0], polls[0]! + 20_000, polls[0]! + 40_000]);
  });

  it("as a reserve driver, ends its shift as its one delivery ends and asks for no offer after it", async () => {
    const clock = virtualClock();
    const { app, calls } = fakeApp(clock, [[offer()], [offer({ offerId: "o2", shipmentId: "s2" })]]);
    const { driver, outcomes, done, shiftsEnded } = driverWith(app, clock, { reserve: true });
    await driver.start();
    await done;
    for (let i = 0; i < 50 && shiftsEnded() === 0; i++) await new Promise((r) => setTimeout(r, 1));
    expect(outcomes).toEqual(["DELIVERED"]);
    expect(shiftsEnded()).toBe(1);
    expect(driver.onShift).toBe(false);
    expect(calls.map((c) => c.what).slice(-2)).toEqual(["DELIVERED", "off shift"]);
    expect(calls.filter((c) => c.what === "offers")).toHaveLength(1);
    await driver.stop(true);
    expect(calls.filter((c) => c.what === "off shift")).toHaveLength(1);
  });
});

