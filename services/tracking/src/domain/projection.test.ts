import { describe, expect, it } from "vitest";
import { coarsen, GRID_MICRO } from "./coarse-position";
import type { ShipmentState } from "./lifecycle";
import { merchantTracking, publicTracking, type TrackedShipment } from "./projection";
import { isLinkExpired, LINK_LIFETIME_MS } from "./tracking-link";

const now = new Date("2026-11-26T10:00:00.000Z");
const fix = { position: { latitudeMicro: 24_681_234, longitudeMicro: 46_701_987 }, accuracyMetres: 9, recordedAt: new Date(now.getTime() - 10_000) };

function tracked(state: ShipmentState, withFix = true): TrackedShipment {
  return {
    shipmentId: "0190a0b0-0000-7000-8000-000000000001",
    merchantId: "0190a0b0-0000-7000-8000-000000000002",
    state,
    pickup: { latitudeMicro: 24_690_123, longitudeMicro: 46_685_456 },
    destination: { latitudeMicro: 24_666_789, longitudeMicro: 46_730_321 },
    cityCode: "RUH",
    terminalAt: null,
    history: [],
    fix: withFix ? fix : null,
  };
}

describe("the coarse public position", () => {
  it("snaps to the nearest 0.005 degree node, exactly, on both sides of zero", () => {
    expect(coarsen({ latitudeMicro: 24_681_234, longitudeMicro: 46_702_501 })).toEqual({ latitudeMicro: 24_680_000, longitudeMicro: 46_705_000 });
    expect(coarsen({ latitudeMicro: -33_867_499, longitudeMicro: -151_207_500 })).toEqual({ latitudeMicro: -33_865_000, longitudeMicro: -151_205_000 });
    for (let micro = 24_000_000; micro < 24_020_000; micro += 777) expect(Math.abs(coarsen({ latitudeMicro: micro, longitudeMicro: 0 }).latitudeMicro % GRID_MICRO)).toBe(0);
  });

  it("is shown only while the parcel is carried, with the grid's 500 m as accuracy", () => {
    const shown = (["ACCEPTED", "PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED"] as const).map((state) => {
      const view = publicTracking(tracked(state), now);
      return [state, view.locationStatus, view.driverLocation];
    });
    const coarse = { position: { latitudeMicro: 24_680_000, longitudeMicro: 46_700_000 }, accuracyMetres: 500, recordedAt: fix.recordedAt, stale: false, ageSeconds: 10 };
    expect(shown).toEqual([
      ["ACCEPTED", "LOCATION_UNAVAILABLE", null],
      ["PICKED_UP", "AVAILABLE", coarse],
      ["OUT_FOR_DELIVERY", "AVAILABLE", coarse],
      ["DELIVERED", "TERMINAL_NO_LIVE_LOCATION", null],
    ]);
  });
});

describe("the merchant's exact position", () => {
  it("is the fix itself with the device's accuracy, from acceptance until the end", () => {
    expect(merchantTracking(tracked("ACCEPTED"), now).driverLocation).toEqual({ ...fix, stale: false, ageSeconds: 10 });
    expect(merchantTracking(tracked("DELIVERED"), now).driverLocation).toBeNull();
    expect(merchantTracking(tracked("ACCEPTED", false), now).driverLocation).toBeNull();
  });
});

describe("estimates", () => {
  it("rest on a live fix: pickup then delivery once assigned, delivery only once carried, none otherwise", () => {
    const assigned = merchantTracking(tracked("ACCEPTED"), now).estimates;
    expect(assigned.pickupAt!.getTime()).toBeGreaterThan(fix.recordedAt.getTime());
    expect(assigned.deliveryAt!.getTime()).toBeGreaterThan(assigned.pickupAt!.getTime());
    const carried = merchantTracking(tracked("OUT_FOR_DELIVERY"), now).estimates;
    expect([carried.pickupAt, carried.deliveryAt!.getTime() > fix.recordedAt.getTime()]).toEqual([null, true]);
    expect(merchantTracking(tracked("OUT_FOR_DELIVERY", false), now).estimates).toEqual({ pickupAt: null, deliveryAt: null });
    expect(merchantTracking({ ...tracked("OUT_FOR_DELIVERY"), cityCode: "XYZ" }, now).estimates).toEqual({ pickupAt: null, deliveryAt: null });
    expect(merchantTracking(tracked("OFFERED"), now).estimates).toEqual({ pickupAt: null, deliveryAt: null });
    const stale = { ...tracked("OUT_FOR_DELIVERY"), fix: { ...fix, recordedAt: new Date(now.getTime() - 121_000) } };
    expect(merchantTracking(stale, now).estimates).toEqual({ pickupAt: null, deliveryAt: null });
  });
});

describe("link lifetime", () => {
  it("lasts until exactly 7 days after the terminal state, and forever before one", () => {
    const end = new Date("2026-11-01T12:00:00.000Z");
    expect([isLinkExpired(null, now), isLinkExpired(end, new Date(end.getTime() + LINK_LIFETIME_MS - 1)), isLinkExpired(end, new Date(end.getTime() + LINK_LIFETIME_MS))]).toEqual([false, false, true]);
  });
});
