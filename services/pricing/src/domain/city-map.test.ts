import type { Polygon } from "geojson";
import { describe, expect, it } from "vitest";
import { CityMap, nearestDistrict, type City } from "./city-map";
import { fromDegrees } from "./coordinate";

/** An axis-aligned square and a diamond with diagonal edges, to probe both kinds of border. */
const square: Polygon = { type: "Polygon", coordinates: [[[10, 10], [11, 10], [11, 11], [10, 11], [10, 10]]] };
const diamond: Polygon = { type: "Polygon", coordinates: [[[21, 20], [22, 21], [21, 22], [20, 21], [21, 20]]] };
const city = (code: string, area: Polygon, districts: City["districts"] = [{ nameEn: `${code} Centre`, nameAr: "وسط", point: fromDegrees(10.5, 10.5) }]): City => ({
  code,
  nameEn: code,
  nameAr: code,
  area,
  districts,
});
const map = new CityMap([city("SQR", square), city("DIA", diamond)]);
const at = (latMicro: number, lngMicro: number) => map.cityAt({ latitudeMicro: latMicro, longitudeMicro: lngMicro })?.code;

describe("CityMap", () => {
  it("counts a point on an edge or a vertex as inside (turf's default, ignoreBoundary false)", () => {
    expect(at(10_500_000, 11_000_000)).toBe("SQR"); // on the east edge
    expect(at(10_000_000, 10_500_000)).toBe("SQR"); // on the south edge
    expect(at(11_000_000, 11_000_000)).toBe("SQR"); // on a vertex
    expect(at(20_000_000, 21_000_000)).toBe("DIA"); // on a vertex of the diamond
    expect(at(21_500_000, 21_500_000)).toBe("DIA"); // on a diagonal edge, exactly representable
  });

  it("puts a point one microdegree beyond the border outside", () => {
    expect(at(10_500_000, 11_000_001)).toBeUndefined();
    expect(at(9_999_999, 10_500_000)).toBeUndefined();
    expect(at(21_500_001, 21_500_001)).toBeUndefined();
    expect(at(10_500_000, 10_999_999)).toBe("SQR");
  });

  it("derives the address line from the nearest district of the containing city", () => {
    const twoDistricts = new CityMap([
      city("SQR", square, [
        { nameEn: "West", nameAr: "الغرب", point: fromDegrees(10.5, 10.2) },
        { nameEn: "East", nameAr: "الشرق", point: fromDegrees(10.5, 10.8) },
      ]),
    ]);
    expect(twoDistricts.contextOf(fromDegrees(10.9, 10.7))).toEqual({ cityCode: "SQR", addressLine: "East, SQR" });
    expect(twoDistricts.contextOf(fromDegrees(10.1, 10.3))).toEqual({ cityCode: "SQR", addressLine: "West, SQR" });
    expect(twoDistricts.contextOf(fromDegrees(12, 12))).toBeUndefined();
  });

  it("breaks a tie between equidistant districts in favour of the one listed first", () => {
    const c = city("SQR", square, [
      { nameEn: "First", nameAr: "أ", point: fromDegrees(10.5, 10.2) },
      { nameEn: "Second", nameAr: "ب", point: fromDegrees(10.5, 10.8) },
    ]);
    expect(nearestDistrict(c, fromDegrees(10.5, 10.5)).nameEn).toBe("First");
  });
});
