import { describe, expect, it } from "vitest";
import { SHIPMENT_STATES, type ShipmentState } from "./lifecycle";
import { ageSeconds, locationStatusOf, refreshSecondsOf } from "./location-status";

const now = new Date("2026-11-26T10:00:00.000Z");
const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);

describe("location status (decisions.md section 9)", () => {
  it("is decided by the state alone before a driver accepts and after the end", () => {
    const expected: Partial<Record<ShipmentState, string>> = {
      PENDING_APPROVAL: "NOT_ASSIGNED",
      READY_FOR_DISPATCH: "NOT_ASSIGNED",
      DISPATCH_UNRESOLVED: "NOT_ASSIGNED",
      OFFERED: "WAITING_FOR_DRIVER_ACCEPTANCE",
      DELIVERED: "TERMINAL_NO_LIVE_LOCATION",
      DELIVERY_FAILED: "TERMINAL_NO_LIVE_LOCATION",
      CANCELLED: "TERMINAL_NO_LIVE_LOCATION",
    };
    for (const [state, status] of Object.entries(expected)) {
      expect([state, locationStatusOf(state as ShipmentState, null, now), locationStatusOf(state as ShipmentState, ago(1), now)]).toEqual([state, status, status]);
    }
  });

  it("follows the age of the fix while a driver has the shipment: unavailable, live below 120 s, stale from 120 s", () => {
    for (const state of ["ACCEPTED", "PICKED_UP", "OUT_FOR_DELIVERY"] as const) {
      expect([null, ago(0), ago(119.999), ago(120), ago(3600)].map((fix) => locationStatusOf(state, fix, now))).toEqual([
        "LOCATION_UNAVAILABLE",
        "AVAILABLE",
        "AVAILABLE",
        "STALE",
        "STALE",
      ]);
    }
  });

  it("counts age in whole seconds, never negative", () => {
    expect([ageSeconds(ago(119.9), now), ageSeconds(ago(120), now), ageSeconds(new Date(now.getTime() + 5000), now)]).toEqual([119, 120, 0]);
  });
});

describe("recommended refresh seconds", () => {
  it("is 5 out for delivery with a live fix, 15 with a driver, 30 waiting for one, 60 otherwise", () => {
    const table = SHIPMENT_STATES.map((state) => [state, refreshSecondsOf(state, locationStatusOf(state, ago(1), now)), refreshSecondsOf(state, locationStatusOf(state, ago(500), now))]);
    expect(table).toEqual([
      ["PENDING_APPROVAL", 60, 60],
      ["READY_FOR_DISPATCH", 30, 30],
      ["OFFERED", 30, 30],
      ["ACCEPTED", 15, 15],
      ["DISPATCH_UNRESOLVED", 30, 30],
      ["PICKED_UP", 15, 15],
      ["OUT_FOR_DELIVERY", 5, 15],
      ["DELIVERED", 60, 60],
      ["DELIVERY_FAILED", 60, 60],
      ["CANCELLED", 60, 60],
    ]);
  });
});
