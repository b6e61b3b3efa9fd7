import { describe, expect, it } from "vitest";
import { saturated, staffingChange, type OwnDriverState } from "./staffing";

const rules = { baseline: 2, cap: 5, idleOffShiftMs: 60_000 };
const NOW = 1_000_000;
const driver = (driverId: string, busy: boolean, idleForMs = 0, onShift = true): OwnDriverState => ({ driverId, onShift, busy, idleSinceMs: NOW - idleForMs });

describe("saturated", () => {
  it("holds only when every driver on shift is busy, and never for a pair with none on shift", () => {
    expect(saturated([driver("a", true), driver("b", true), driver("c", false, 0, false)])).toBe(true);
    expect(saturated([driver("a", true), driver("b", false)])).toBe(false);
    expect(saturated([])).toBe(false);
  });
});

describe("staffingChange", () => {
  it("brings a pair up to its baseline, with or without demand", () => {
    expect(staffingChange([], undefined, rules, NOW)).toEqual({ bringOn: 2, takeOff: [] });
    expect(staffingChange([driver("a", false)], { free: 5, waiting: 0 }, rules, NOW)).toEqual({ bringOn: 1, takeOff: [] });
  });

  it("brings on one driver per job waiting beyond dispatch's free drivers while all are busy, up to the cap", () => {
    const busy = [driver("a", true), driver("b", true)];
    expect(staffingChange(busy, { free: 0, waiting: 2 }, rules, NOW)).toEqual({ bringOn: 2, takeOff: [] });
    expect(staffingChange(busy, { free: 1, waiting: 2 }, rules, NOW)).toEqual({ bringOn: 1, takeOff: [] });
    expect(staffingChange(busy, { free: 0, waiting: 5_000 }, rules, NOW)).toEqual({ bringOn: 3, takeOff: [] });
  });

  it("brings on nobody for a waiting backlog while one of the pair's drivers is free (it will be offered the job)", () => {
    expect(staffingChange([driver("a", true), driver("b", false)], { free: 0, waiting: 50 }, rules, NOW)).toEqual({ bringOn: 0, takeOff: [] });
  });

  it("takes extra drivers idle for the period off shift, longest idle first, never below the baseline", () => {
    const drivers = [driver("a", false, 90_000), driver("b", false, 120_000), driver("c", false, 61_000), driver("d", false, 10_000), driver("e", true)];
    expect(staffingChange(drivers, undefined, rules, NOW)).toEqual({ bringOn: 0, takeOff: ["b", "a", "c"] });
    expect(staffingChange([driver("a", false, 600_000), driver("b", false, 600_000)], undefined, rules, NOW)).toEqual({ bringOn: 0, takeOff: [] });
  });

  it("keeps busy and recently freed extras on shift", () => {
    const drivers = [driver("a", true), driver("b", true), driver("c", true), driver("d", false, 59_999)];
    expect(staffingChange(drivers, undefined, rules, NOW)).toEqual({ bringOn: 0, takeOff: [] });
  });
});
