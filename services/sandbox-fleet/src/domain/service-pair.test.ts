import { describe, expect, it } from "vitest";
import { driverName, indexInName } from "./service-pair";

const pair = { cityCode: "RUH", carrierCode: "SAQR", vehicle: "BIKE" } as const;

describe("fleet driver names", () => {
  it("name the pair and the index, and give the index back for the same pair only", () => {
    expect(driverName(pair, 3)).toBe("Sandbox SAQR BIKE RUH 3");
    expect(indexInName(pair, "Sandbox SAQR BIKE RUH 3")).toBe(3);
    expect(indexInName({ ...pair, cityCode: "JED" }, "Sandbox SAQR BIKE RUH 3")).toBeUndefined();
    expect(indexInName(pair, "Sandbox SAQR BIKE RUH 0")).toBeUndefined();
    expect(indexInName(pair, "Noura")).toBeUndefined();
  });
});
