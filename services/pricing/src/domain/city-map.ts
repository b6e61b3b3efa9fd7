import { haversineMetres, type Coordinate } from "@tawsil/domain";
import { booleanPointInPolygon } from "@turf/boolean-point-in-polygon";
import type { MultiPolygon, Polygon } from "geojson";
import { toPosition } from "./coordinate";

/** A named district of a city with a representative point, from the bundled gazetteer. */
export interface District {
  readonly nameEn: string;
  readonly nameAr: string;
  readonly point: Coordinate;
}

/** A city we deliver in: its service area (data/service-areas.geojson) and its districts. */
export interface City {
  readonly code: string;
  readonly nameEn: string;
  readonly nameAr: string;
  readonly area: Polygon | MultiPolygon;
  /** Never empty: the loader refuses a city without districts. */
  readonly districts: readonly District[];
}

/** What pricing derives for a covered coordinate. */
export interface LocationContext {
  readonly cityCode: string;
  /** "<nearest district of that city>, <city name>", English for now. */
  readonly addressLine: string;
}

/**
 * Which city's service area holds a coordinate. A point on an area's border (an edge or a vertex)
 * counts as inside: turf's booleanPointInPolygon with `ignoreBoundary: false` (its default) treats
 * the boundary as part of the polygon, so a pin dropped on the line is served rather than refused.
 * Areas do not overlap; were they to share a border, the first city in data order would win.
 */
export class CityMap {
  private readonly byCode: ReadonlyMap<string, City>;

  constructor(readonly cities: readonly City[]) {
    this.byCode = new Map(cities.map((city) => [city.code, city]));
  }

  city(code: string): City | undefined {
    return this.byCode.get(code);
  }

  cityAt(point: Coordinate): City | undefined {
    const position = toPosition(point);
    return this.cities.find((city) => booleanPointInPolygon(position, city.area, { ignoreBoundary: false }));
  }

  /** The city and address line of a coordinate, or undefined when no service area holds it. */
  contextOf(point: Coordinate): LocationContext | undefined {
    const city = this.cityAt(point);
    if (!city) return undefined;
    return { cityCode: city.code, addressLine: `${nearestDistrict(city, point).nameEn}, ${city.nameEn}` };
  }
}

/** The district whose representative point is closest; ties go to the one listed first. */
export function nearestDistrict(city: City, point: Coordinate): District {
  let best: District | undefined;
  let bestMetres = Infinity;
  for (const district of city.districts) {
    const metres = haversineMetres(point, district.point);
    if (metres < bestMetres) {
      best = district;
      bestMetres = metres;
    }
  }
  if (!best) throw new Error(`city ${city.code} has no districts`);
  return best;
}
