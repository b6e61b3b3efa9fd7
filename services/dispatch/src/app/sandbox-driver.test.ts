import type { Logger } from "@tawsil/logging";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { DriverApi, LocationReport } from "./driver-api";
import { LocationBatch } from "./location-batch";
import { SandboxDriver, type Task } from "./sandbox-driver";

const TICK_MS = 2_000;
/** Past a grid point, for the batch written just after it. */
const SETTLE_MS = 10;
const RIYADH = { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 };
// About 50 km north: no driver arrives during these tests, so they only report positions.
const FAR = { latitudeMicro: 25_163_600, longitudeMicro: 46_675_300 };
const task = (shipmentId: string): Task => ({ shipmentId, pickup: FAR, destination: FAR, phase: "TO_PICKUP" });
const logger = { warn: () => {}, info: () => {} } as unknown as Logger;

let writes: (readonly LocationReport[])[];
let batch: LocationBatch;
const driver = (id: string, shipmentId: string) =>
  new SandboxDriver(id, RIYADH, {
    driverApi: {} as DriverApi,
    reportLocation: (report) => batch.report(report),
    logger,
    speedKmh: 36,
    failureRate: 0,
    tickMs: TICK_MS,
    acceptDelayMs: 300,
    random: () => 0.5,
  }, task(shipmentId));

beforeEach(() => {
  // 300 ms past a grid point of the 2 s tick.
  vi.useFakeTimers({ now: 1_000_000_300 });
  writes = [];
  batch = new LocationBatch(async (reports) => {
    writes.push(reports);
  });
});

afterEach(() => {
  vi.useRealTimers();
});

describe("the sandbox fleet's location reports", () => {
  it("fall on a grid shared by every driver on the road, so one write carries them all", async () => {
    const a = driver("a", "s-a");
    const b = driver("b", "s-b");
    a.start();
    await vi.advanceTimersByTimeAsync(700);
    b.start(); // 700 ms later: its first tick still lands on the same grid point as a's
    await vi.advanceTimersByTimeAsync(1_000 + 2 * TICK_MS + SETTLE_MS);
    expect(writes.map((reports) => reports.map((r) => r.driverId).sort())).toEqual([
      ["a", "b"],
      ["a", "b"],
      ["a", "b"],
    ]);
    expect(writes.flat().every((r) => Number(r.recordTimeMs) % TICK_MS === 0)).toBe(true);
    await Promise.all([a.stop(), b.stop()]);
  });

  it("move each driver by the time that really passed, however late its first tick", async () => {
    const a = driver("a", "s-a");
    a.start();
    await vi.advanceTimersByTimeAsync(1_700 + TICK_MS + SETTLE_MS);
    const [first, second] = writes.map((reports) => reports[0]!.position!.latitudeMicro - RIYADH.latitudeMicro);
    // 10 m/s: 1.7 s then 2 s more, about 9 micro-degrees of latitude per metre.
    expect(first).toBeGreaterThan(17 * 8.5);
    expect(first).toBeLessThan(17 * 9.5);
    expect(second! - first!).toBeGreaterThan(20 * 8.5);
    expect(second! - first!).toBeLessThan(20 * 9.5);
    await a.stop();
  });

  it("tells every driver of a batch that failed, and each tries again on its next tick", async () => {
    let fail = true;
    batch = new LocationBatch(async (reports) => {
      if (fail) throw new Error("database down");
      writes.push(reports);
    });
    const a = driver("a", "s-a");
    const b = driver("b", "s-b");
    a.start();
    b.start();
    await vi.advanceTimersByTimeAsync(1_700 + SETTLE_MS);
    expect(writes).toEqual([]);
    fail = false;
    await vi.advanceTimersByTimeAsync(TICK_MS);
    expect(writes.map((reports) => reports.length)).toEqual([2]);
    await Promise.all([a.stop(), b.stop()]);
  });
});
