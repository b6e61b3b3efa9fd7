import { describe, expect, it } from "vitest";
import { hungry, saturated, staffingChange, type OwnDriverState } from "./staffing";

const rules = { baseline: 2, cap: 5, reserve: 2, recentMs: 60_000, idleOffShiftMs: 60_000 };
const NOW = 1_000_000;
const driver = (driverId: string, busy: boolean, idleForMs = 0, onShift = true, reserve = false): OwnDriverState => ({ driverId, onShift, busy, idleSinceMs: NOW - idleForMs, reserve });
const reserveDriver = (driverId: string, busy: boolean): OwnDriverState => driver(driverId, busy, 0, true, true);

describe("saturated", () => {
  it("holds only when every driver on shift is busy, and never for a pair with none on shift", () => {
    expect(saturated([driver("a", true), driver("b", true), driver("c", false, 0, false)])).toBe(true);
    expect(saturated([driver("a", true), driver("b", false)])).toBe(false);
    expect(saturated([])).toBe(false);
  });
});

describe("staffingChange", () => {
  it("brings a pair up to its baseline, with or without demand", () => {
    expect(staffingChange([], undefined, rules, NOW)).toEqual({ bringOn: 2, bringOnReserve: 0, takeOff: [] });
    expect(staffingChange([driver("a", false)], { free: 5, waiting: 0, waitingRecent: 0 }, rules, NOW)).toEqual({ bringOn: 1, bringOnReserve: 0, takeOff: [] });
  });

  it("brings on one driver per job waiting beyond dispatch's free drivers while all are busy, up to the cap", () => {
    const busy = [driver("a", true), driver("b", true)];
    expect(staffingChange(busy, { free: 0, waiting: 2, waitingRecent: 0 }, rules, NOW)).toEqual({ bringOn: 2, bringOnReserve: 0, takeOff: [] });
    expect(staffingChange(busy, { free: 1, waiting: 2, waitingRecent: 0 }, rules, NOW)).toEqual({ bringOn: 1, bringOnReserve: 0, takeOff: [] });
    expect(staffingChange(busy, { free: 0, waiting: 5_000, waitingRecent: 0 }, rules, NOW)).toEqual({ bringOn: 3, bringOnReserve: 0, takeOff: [] });
  });

  it("brings on nobody for a waiting backlog while one of the pair's drivers is free (it will be offered the job)", () => {
    expect(staffingChange([driver("a", true), driver("b", false)], { free: 0, waiting: 50, waitingRecent: 0 }, rules, NOW)).toEqual({ bringOn: 0, bringOnReserve: 0, takeOff: [] });
  });

  it("takes extra drivers idle for the period off shift, longest idle first, never below the baseline", () => {
    const drivers = [driver("a", false, 90_000), driver("b", false, 120_000), driver("c", false, 61_000), driver("d", false, 10_000), driver("e", true)];
    expect(staffingChange(drivers, undefined, rules, NOW)).toEqual({ bringOn: 0, bringOnReserve: 0, takeOff: ["b", "a", "c"] });
    expect(staffingChange([driver("a", false, 600_000), driver("b", false, 600_000)], undefined, rules, NOW)).toEqual({ bringOn: 0, bringOnReserve: 0, takeOff: [] });
  });

  it("keeps busy and recently freed extras on shift", () => {
    const drivers = [driver("a", true), driver("b", true), driver("c", true), driver("d", false, 59_999)];
    expect(staffingChange(drivers, undefined, rules, NOW)).toEqual({ bringOn: 0, bringOnReserve: 0, takeOff: [] });
  });

  it("at the cap, calls a reserve driver per recent job the free drivers cannot take, at most the reserve at once", () => {
    const atCap = ["a", "b", "c", "d", "e"].map((id) => driver(id, true));
    expect(staffingChange(atCap, { free: 0, waiting: 5_000, waitingRecent: 1 }, rules, NOW)).toEqual({ bringOn: 0, bringOnReserve: 1, takeOff: [] });
    expect(staffingChange(atCap, { free: 0, waiting: 5_000, waitingRecent: 9 }, rules, NOW)).toEqual({ bringOn: 0, bringOnReserve: 2, takeOff: [] });
    expect(staffingChange([...atCap, reserveDriver("r1", true)], { free: 0, waiting: 5_000, waitingRecent: 9 }, rules, NOW)).toEqual({ bringOn: 0, bringOnReserve: 1, takeOff: [] });
    expect(staffingChange([...atCap, reserveDriver("r1", true), reserveDriver("r2", true)], { free: 0, waiting: 5_000, waitingRecent: 9 }, rules, NOW)).toEqual({ bringOn: 0, bringOnReserve: 0, takeOff: [] });
    // A free driver (a reserve driver on its way to the job) takes a recent job first.
    expect(staffingChange(atCap, { free: 1, waiting: 5_000, waitingRecent: 1 }, rules, NOW)).toEqual({ bringOn: 0, bringOnReserve: 0, takeOff: [] });
    // Only the backlog waits: no reserve.
    expect(staffingChange(atCap, { free: 0, waiting: 5_000, waitingRecent: 0 }, rules, NOW)).toEqual({ bringOn: 0, bringOnReserve: 0, takeOff: [] });
  });

  it("below the cap grows the regular drivers first, and calls the reserve only for recent jobs those do not cover", () => {
    const four = ["a", "b", "c", "d"].map((id) => driver(id, true));
    expect(staffingChange(four, { free: 0, waiting: 5_000, waitingRecent: 1 }, rules, NOW)).toEqual({ bringOn: 1, bringOnReserve: 0, takeOff: [] });
    expect(staffingChange(four, { free: 0, waiting: 5_000, waitingRecent: 3 }, rules, NOW)).toEqual({ bringOn: 1, bringOnReserve: 2, takeOff: [] });
    expect(staffingChange([driver("a", true), driver("b", true)], { free: 0, waiting: 3, waitingRecent: 3 }, rules, NOW)).toEqual({ bringOn: 3, bringOnReserve: 0, takeOff: [] });
  });
});

describe("hungry", () => {
  it("while the regular drivers are all busy, below the cap or with reserve left; a free reserve driver does not end it", () => {
    const atCap = ["a", "b", "c", "d", "e"].map((id) => driver(id, true));
    expect(hungry(atCap.slice(0, 4), rules)).toBe(true);
    expect(hungry(atCap, rules)).toBe(true);
    expect(hungry([...atCap, reserveDriver("r1", false)], rules)).toBe(true);
    expect(hungry([...atCap, reserveDriver("r1", true), reserveDriver("r2", false)], rules)).toBe(false);
    expect(hungry(atCap, { ...rules, reserve: 0 }), "no reserve: a pair at its cap waits for its own").toBe(false);
    expect(hungry([driver("a", true), driver("b", false)], rules)).toBe(false);
  });
});

