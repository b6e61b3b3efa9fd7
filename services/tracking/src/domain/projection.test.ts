import { describe, expect, it } from "vitest";
import { coarsen, GRID_MICRO } from "./coarse-position";
import { driveSeconds } from "./eta";
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
    reasonCode: null,
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

describe("public estimates (decisions.md section 9)", () => {
  // Both inside the cell of node (24.680, 46.700), about 600 m apart: from the exact fix their
  // delivery estimates differ by more than a minute and a half.
  const near = { ...fix, position: { latitudeMicro: 24_678_000, longitudeMicro: 46_698_000 } };
  const far = { ...fix, position: { latitudeMicro: 24_682_400, longitudeMicro: 46_702_400 } };
  const withFix = (state: ShipmentState, f: typeof fix) => ({ ...tracked(state), fix: f });

  it("are the same for two exact fixes inside one cell: the whole public answer is", () => {
    for (const state of ["PICKED_UP", "OUT_FOR_DELIVERY"] as const) {
      expect(merchantTracking(withFix(state, near), now).estimates).not.toEqual(merchantTracking(withFix(state, far), now).estimates);
      expect(publicTracking(withFix(state, near), now)).toEqual(publicTracking(withFix(state, far), now));
    }
  });

  it("run from the shown cell to the shown destination area, to the whole minute, with no pickup estimate", () => {
    const view = publicTracking(withFix("OUT_FOR_DELIVERY", near), now);
    const seconds = driveSeconds("RUH", coarsen(near.position), coarsen(tracked("OUT_FOR_DELIVERY").destination))!;
    const expected = Math.round((near.recordedAt.getTime() + seconds * 1000) / 60_000) * 60_000;
    expect([view.estimates.pickupAt, view.estimates.deliveryAt?.getTime()]).toEqual([null, expected]);
    expect(expected % 60_000).toBe(0);
    expect(near.recordedAt.getTime() % 60_000).not.toBe(0); // the rounding is the estimate's, not the fix's
  });

  it("are none before pickup, while the merchant's view has both from the live fix", () => {
    const merchant = merchantTracking(tracked("ACCEPTED"), now);
    expect([merchant.locationStatus, merchant.estimates.pickupAt !== null, merchant.estimates.deliveryAt !== null]).toEqual(["AVAILABLE", true, true]);
    const customer = publicTracking(tracked("ACCEPTED"), now);
    expect([customer.locationStatus, customer.driverLocation, customer.estimates]).toEqual(["LOCATION_UNAVAILABLE", null, { pickupAt: null, deliveryAt: null }]);
  });

  it("are none from a stale fix, nor without a fix, nor once terminal", () => {
    const stale = withFix("OUT_FOR_DELIVERY", { ...fix, recordedAt: new Date(now.getTime() - 120_000) });
    expect(publicTracking(stale, now)).toMatchObject({ locationStatus: "STALE", estimates: { pickupAt: null, deliveryAt: null } });
    expect(publicTracking(tracked("OUT_FOR_DELIVERY", false), now)).toMatchObject({ locationStatus: "LOCATION_UNAVAILABLE", estimates: { pickupAt: null, deliveryAt: null } });
    expect(publicTracking(tracked("DELIVERED"), now).estimates).toEqual({ pickupAt: null, deliveryAt: null });
  });
});

describe("link lifetime", () => {
  it("lasts until exactly 7 days after the terminal state, and forever before one", () => {
    const end = new Date("2026-11-01T12:00:00.000Z");
    expect([isLinkExpired(null, now), isLinkExpired(end, new Date(end.getTime() + LINK_LIFETIME_MS - 1)), isLinkExpired(end, new Date(end.getTime() + LINK_LIFETIME_MS))]).toEqual([false, false, true]);
  });
});
