import { createLogger } from "@tawsil/logging";
import { describe, expect, it } from "vitest";
import type { Catalogue } from "../domain/catalogue";
import type { CityStaffing } from "../domain/city-staffing";
import { StaffingPublisher } from "./staffing-publisher";

const bike = { id: "bike", level: "BIKE" as const, maxWeightGrams: 5000, maxLongestSideMm: 450, supportsCod: true, requirements: new Set<never>(), cities: new Set(["RUH", "JED"]), active: true };
const CATALOGUE: Catalogue = { carriers: [{ id: "c", code: "C", active: true, services: [bike] }] };

function publisherOver(onShift: Set<string>, record: (changed: readonly CityStaffing[]) => Promise<void>) {
  return new StaffingPublisher({
    catalogue: { current: () => CATALOGUE },
    activeDrivers: { cities: () => new Set([...onShift].map((pair) => pair.split("|")[0]!)), has: (city, service) => onShift.has(`${city}|${service}`) },
    record,
    logger: createLogger({ service: "test", level: "silent" }),
  });
}

const summary = (batch: readonly CityStaffing[]) => batch.map((city) => `${city.cityCode}:${city.services.length}`);

describe("StaffingPublisher", () => {
  it("records every city first, then only the cities whose staffing changed, and nothing when none did", async () => {
    const onShift = new Set(["RUH|bike"]);
    const batches: string[][] = [];
    const publisher = publisherOver(onShift, async (changed) => void batches.push(summary(changed)));
    await publisher.publishChanges();
    await publisher.publishChanges();
    onShift.add("JED|bike");
    await publisher.publishChanges();
    onShift.delete("RUH|bike");
    await publisher.publishChanges();
    expect(batches).toEqual([["JED:0", "RUH:1"], ["JED:1"], ["RUH:0"]]);
    expect(publisher.upToDate()).toBe(true);
  });

  it("runs once more after the run in flight when asked meanwhile, and retries what a failed write left unrecorded", async () => {
    const onShift = new Set<string>();
    const batches: string[][] = [];
    let fail = false;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const publisher = publisherOver(onShift, async (changed) => {
      if (batches.length === 0) await gate;
      if (fail) throw new Error("database away");
      batches.push(summary(changed));
    });
    const first = publisher.publishChanges();
    onShift.add("RUH|bike");
    const second = publisher.publishChanges();
    expect(publisher.upToDate()).toBe(false);
    release();
    await Promise.all([first, second]);
    expect(batches).toEqual([["JED:0", "RUH:0"], ["RUH:1"]]);

    fail = true;
    onShift.add("JED|bike");
    await expect(publisher.publishChanges()).rejects.toThrow("database away");
    expect(publisher.upToDate()).toBe(false);
    fail = false;
    await publisher.publishChanges();
    expect(batches.at(-1)).toEqual(["JED:1"]);
    expect(publisher.upToDate()).toBe(true);
  });
});
