import { describe, expect, it } from "vitest";
import type { Catalogue, CarrierService } from "../domain/catalogue";
import { fleetOnDuty } from "./sandbox-fleet";

const service = (id: string, cities: string[], active = true): CarrierService => ({
  id,
  level: "BIKE",
  maxWeightGrams: 10_000,
  maxLongestSideMm: 500,
  supportsCod: true,
  requirements: new Set(),
  cities: new Set(cities),
  active,
});

const catalogue: Catalogue = {
  carriers: [
    { id: "c1", code: "C1", active: true, services: [service("s1", ["RUH", "JED"]), service("s2", ["RUH"], false)] },
    { id: "c2", code: "C2", active: false, services: [service("s3", ["RUH"])] },
    // A city with no centre is not staffed by the fleet.
    { id: "c4", code: "C4", active: true, services: [service("s4", ["XYZ"])] },
  ],
};

const onShift = (...pairs: string[]) => ({ has: (city: string, serviceId: string) => pairs.includes(`${city}|${serviceId}`) });

describe("fleetOnDuty", () => {
  it("holds once every active service of an active carrier has a driver on shift in each city it staffs", () => {
    expect(fleetOnDuty(catalogue, onShift())).toBe(false);
    expect(fleetOnDuty(catalogue, onShift("RUH|s1"))).toBe(false);
    expect(fleetOnDuty(catalogue, onShift("RUH|s1", "JED|s1"))).toBe(true);
  });
});
