import { describe, expect, it } from "vitest";
import { haversineMetres } from "@tawsil/domain";
import { fromDegrees } from "./coordinate";
import { DEFAULT_CIRCUITY_FACTORS, GreatCircleDistance, parseCircuityFactors } from "./route-distance";

const signal = new AbortController().signal;

describe("great-circle route distance", () => {
  it("measures the great circle: one degree of latitude is about 111.2 km", () => {
    expect(Math.round(haversineMetres(fromDegrees(24, 46), fromDegrees(25, 46)))).toBe(111_195);
    expect(haversineMetres(fromDegrees(24.7, 46.7), fromDegrees(24.7, 46.7))).toBe(0);
  });

  it("multiplies by the city's circuity factor and rounds to whole metres", async () => {
    const model = new GreatCircleDistance({ RUH: 1.3, MKK: 1.45 });
    const a = fromDegrees(24.69, 46.685);
    const b = fromDegrees(24.666, 46.73);
    const straight = haversineMetres(a, b);
    expect(await model.metres({ coordinate: a, cityCode: "RUH" }, { coordinate: b, cityCode: "RUH" }, signal)).toBe(Math.round(straight * 1.3));
    expect(await model.metres({ coordinate: a, cityCode: "MKK" }, { coordinate: b, cityCode: "MKK" }, signal)).toBe(Math.round(straight * 1.45));
    expect(() => model.factorOf("JED")).toThrow("no circuity factor for city JED");
  });
});

describe("parseCircuityFactors", () => {
  it("keeps the documented defaults when nothing overrides them", () => {
    expect(parseCircuityFactors("")).toEqual({ RUH: 1.3, JED: 1.35, DMM: 1.3, MKK: 1.45, MED: 1.3 });
    expect(parseCircuityFactors("")).toEqual(DEFAULT_CIRCUITY_FACTORS);
  });

  it("overrides and adds cities from CITY=FACTOR pairs", () => {
    expect(parseCircuityFactors(" RUH=1.25 , TIF=1.4")).toMatchObject({ RUH: 1.25, JED: 1.35, TIF: 1.4 });
  });

  it("refuses malformed entries and factors outside 1..3", () => {
    for (const bad of ["RUH", "RUH=", "ruh=1.3", "RUH=0.9", "RUH=3.5", "RUH=abc", "RIYADH=1.3"]) {
      expect(() => parseCircuityFactors(bad), bad).toThrow(/is not CITY=FACTOR/);
    }
  });
});
