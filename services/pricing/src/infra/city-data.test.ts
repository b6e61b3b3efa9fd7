import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fromDegrees } from "../domain/coordinate";
import { DATA_DIR, loadCityMap } from "./city-data";

const map = loadCityMap();
const cityAt = (lat: number, lng: number) => map.cityAt(fromDegrees(lat, lng))?.code;

describe("the bundled service areas and gazetteer", () => {
  it("serve the five launch cities, each an outline of tens of vertices with 8 to 15 districts", () => {
    expect(map.cities.map((c) => c.code)).toEqual(["RUH", "JED", "DMM", "MKK", "MED"]);
    for (const city of map.cities) {
      expect(city.area.type).toBe("Polygon");
      expect(city.area.coordinates[0]?.length, city.code).toBeGreaterThanOrEqual(15);
      expect(city.districts.length, city.code).toBeGreaterThanOrEqual(8);
      expect(city.districts.length, city.code).toBeLessThanOrEqual(15);
    }
  });

  it("place each city's landmark in that city", () => {
    expect(cityAt(24.7116, 46.6744)).toBe("RUH"); // Kingdom Centre
    expect(cityAt(21.4858, 39.186)).toBe("JED"); // Al Balad
    expect(cityAt(26.2883, 50.2082)).toBe("DMM"); // Khobar
    expect(cityAt(26.4207, 50.0888)).toBe("DMM"); // Dammam
    expect(cityAt(21.4225, 39.8262)).toBe("MKK"); // Masjid al-Haram
    expect(cityAt(24.4672, 39.6112)).toBe("MED"); // the Prophet's Mosque
  });

  it("follow Jeddah's coast: the Red Sea off the old town is outside although inside the outline's bounding box", () => {
    const ring = (map.city("JED")?.area.coordinates[0] ?? []) as number[][];
    const lngs = ring.map((p) => p[0] ?? NaN);
    const lats = ring.map((p) => p[1] ?? NaN);
    const [minLng, maxLng, minLat, maxLat] = [Math.min(...lngs), Math.max(...lngs), Math.min(...lats), Math.max(...lats)];
    for (const [lat, lng] of [
      [21.5, 39.12], // about 4 km off Al Balad: the sea point the tests and the gateway use
      [21.6, 39.1], // off the North Corniche
      [21.4, 39.15], // off the south port
    ] as const) {
      expect(lng > minLng && lng < maxLng && lat > minLat && lat < maxLat, `${lat},${lng} in the bounding box`).toBe(true);
      expect(cityAt(lat, lng), `${lat},${lng}`).toBeUndefined();
    }
  });

  it("count Riyadh's border as inside and a microdegree beyond it as outside", () => {
    // The eastern edge runs due north along 46.96 E from 24.70 to 24.76 N.
    expect(map.cityAt({ latitudeMicro: 24_730_000, longitudeMicro: 46_960_000 })?.code).toBe("RUH");
    expect(map.cityAt({ latitudeMicro: 24_730_000, longitudeMicro: 46_960_001 })).toBeUndefined();
    expect(map.cityAt({ latitudeMicro: 24_720_000, longitudeMicro: 46_520_000 })?.code).toBe("RUH"); // a vertex
  });

  it("leave the open desert between cities uncovered", () => {
    expect(cityAt(23.0, 44.0)).toBeUndefined();
    expect(cityAt(21.45, 39.5)).toBeUndefined(); // between Jeddah and Makkah
  });

  it("derive the address line from the nearest district", () => {
    expect(map.contextOf(fromDegrees(24.69, 46.685))).toEqual({ cityCode: "RUH", addressLine: "Al Olaya, Riyadh" });
    expect(map.contextOf(fromDegrees(24.666, 46.73))).toEqual({ cityCode: "RUH", addressLine: "Al Malaz, Riyadh" });
    expect(map.contextOf(fromDegrees(21.514, 39.168))).toEqual({ cityCode: "JED", addressLine: "Al Hamra, Jeddah" });
    expect(map.contextOf(fromDegrees(26.296, 50.196))).toEqual({ cityCode: "DMM", addressLine: "Al Aqrabiyah, Dammam–Khobar" });
  });
});

describe("loadCityMap", () => {
  const copy = (edit: (areas: { features: { geometry: { coordinates: number[][][] } }[] }, districts: Record<string, unknown[]>) => void) => {
    const dir = mkdtempSync(path.join(tmpdir(), "pricing-data-"));
    const areas = JSON.parse(readFileSync(path.join(DATA_DIR, "service-areas.geojson"), "utf8"));
    const districts = JSON.parse(readFileSync(path.join(DATA_DIR, "districts.json"), "utf8"));
    edit(areas, districts);
    writeFileSync(path.join(dir, "service-areas.geojson"), JSON.stringify(areas));
    writeFileSync(path.join(dir, "districts.json"), JSON.stringify(districts));
    return dir;
  };

  it("refuses a district outside its city and a city without districts", () => {
    const dir = copy((_, districts) => {
      districts.RUH?.push({ name_en: "Atlantis", name_ar: "أطلانتس", latitude: 21.5, longitude: 39.12 });
      delete districts.MED;
    });
    expect(() => loadCityMap(dir)).toThrow(/district Atlantis lies outside RUH's service area[\s\S]*city MED has no districts/);
  });

  it("refuses a ring that does not close", () => {
    const dir = copy((areas) => areas.features[0]?.geometry.coordinates[0]?.pop());
    expect(() => loadCityMap(dir)).toThrow(/a ring must end where it starts/);
  });
});
