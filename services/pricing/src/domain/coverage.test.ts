import type { Polygon } from "geojson";
import { describe, expect, it } from "vitest";
import { CityMap, type City } from "./city-map";
import { fromDegrees } from "./coordinate";
import { resolveCoverage } from "./coverage";

const square = (x: number): Polygon => ({ type: "Polygon", coordinates: [[[x, 0], [x + 1, 0], [x + 1, 1], [x, 1], [x, 0]]] });
const city = (code: string, x: number): City => ({
  code,
  nameEn: code.toLowerCase(),
  nameAr: code,
  area: square(x),
  districts: [{ nameEn: "Centre", nameAr: "وسط", point: fromDegrees(0.5, x + 0.5) }],
});
const map = new CityMap([city("AAA", 0), city("BBB", 10)]);
const inA = fromDegrees(0.2, 0.2);
const alsoInA = fromDegrees(0.8, 0.9);
const inB = fromDegrees(0.5, 10.5);
const nowhere = fromDegrees(5, 5);

const failure = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as { reason?: string }).reason;
  }
  return "no failure";
};

describe("resolveCoverage", () => {
  it("derives the common city and both address lines", () => {
    expect(resolveCoverage(map, inA, alsoInA, "AAA")).toEqual({
      cityCode: "AAA",
      pickup: { cityCode: "AAA", addressLine: "Centre, aaa" },
      destination: { cityCode: "AAA", addressLine: "Centre, aaa" },
    });
    expect(resolveCoverage(map, inA, alsoInA).cityCode).toBe("AAA");
  });

  it("refuses a pickup or destination outside every area, and a cross-city delivery, with OUTSIDE_COVERAGE", () => {
    expect(failure(() => resolveCoverage(map, nowhere, inA))).toBe("OUTSIDE_COVERAGE");
    expect(failure(() => resolveCoverage(map, inA, nowhere))).toBe("OUTSIDE_COVERAGE");
    expect(failure(() => resolveCoverage(map, inA, inB))).toBe("OUTSIDE_COVERAGE");
  });

  it("refuses an expected city that is not the destination's with CITY_MISMATCH", () => {
    expect(failure(() => resolveCoverage(map, inA, alsoInA, "BBB"))).toBe("CITY_MISMATCH");
    expect(failure(() => resolveCoverage(map, inA, alsoInA, "XYZ"))).toBe("CITY_MISMATCH");
  });

  it("checks coverage before the expected city: uncovered wins over mismatched", () => {
    expect(failure(() => resolveCoverage(map, inA, nowhere, "BBB"))).toBe("OUTSIDE_COVERAGE");
    expect(failure(() => resolveCoverage(map, inA, inB, "AAA"))).toBe("OUTSIDE_COVERAGE");
  });
});
