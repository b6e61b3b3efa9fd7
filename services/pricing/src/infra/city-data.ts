import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { CityMap, type City } from "../domain/city-map";
import { fromDegrees } from "../domain/coordinate";

/** services/pricing/data: the service areas and the district gazetteer ship with the service. */
export const DATA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "data");

const position = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]);
const ring = z
  .array(position)
  .min(4)
  .refine((points) => points[0]?.[0] === points.at(-1)?.[0] && points[0]?.[1] === points.at(-1)?.[1], "a ring must end where it starts");
const polygon = z.object({ type: z.literal("Polygon"), coordinates: z.array(ring).min(1) });
const multiPolygon = z.object({ type: z.literal("MultiPolygon"), coordinates: z.array(z.array(ring).min(1)).min(1) });

const serviceAreas = z.object({
  type: z.literal("FeatureCollection"),
  features: z.array(
    z.object({
      type: z.literal("Feature"),
      properties: z.object({ code: z.string().regex(/^[A-Z]{3}$/), name_en: z.string().min(1), name_ar: z.string().min(1) }),
      geometry: z.discriminatedUnion("type", [polygon, multiPolygon]),
    }),
  ),
});

const gazetteer = z.record(
  z.string(),
  z.array(z.object({ name_en: z.string().min(1), name_ar: z.string().min(1), latitude: z.number(), longitude: z.number() })).min(1),
);

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, "utf8"));
}

/**
 * Reads data/service-areas.geojson and data/districts.json once at start-up and refuses data that
 * would answer wrongly later: a malformed polygon, a duplicate city, a city without districts
 * (or districts without a city), or a district whose point lies outside its own city.
 */
export function loadCityMap(dir: string = DATA_DIR): CityMap {
  const areas = serviceAreas.parse(readJson(path.join(dir, "service-areas.geojson")));
  const districts = gazetteer.parse(readJson(path.join(dir, "districts.json")));

  const cities: City[] = areas.features.map(({ properties, geometry }) => ({
    code: properties.code,
    nameEn: properties.name_en,
    nameAr: properties.name_ar,
    area: geometry,
    districts: (districts[properties.code] ?? []).map((d) => ({ nameEn: d.name_en, nameAr: d.name_ar, point: fromDegrees(d.latitude, d.longitude) })),
  }));
  const codes = cities.map((city) => city.code);
  const problems: string[] = [];
  for (const code of new Set(codes)) if (codes.indexOf(code) !== codes.lastIndexOf(code)) problems.push(`city ${code} has two service areas`);
  for (const code of Object.keys(districts)) if (!codes.includes(code)) problems.push(`districts.json lists ${code}, which has no service area`);
  const map = new CityMap(cities);
  for (const city of cities) {
    if (city.districts.length === 0) problems.push(`city ${city.code} has no districts`);
    for (const district of city.districts) {
      if (map.cityAt(district.point)?.code !== city.code) problems.push(`district ${district.nameEn} lies outside ${city.code}'s service area`);
    }
  }
  if (problems.length > 0) throw new Error(`invalid city data in ${dir}:\n  - ${problems.join("\n  - ")}`);
  return map;
}
