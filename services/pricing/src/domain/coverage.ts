import type { Coordinate } from "@tawsil/domain";
import { FailedPreconditionError } from "@tawsil/errors";
import type { CityMap, LocationContext } from "./city-map";

export interface Coverage {
  readonly cityCode: string;
  readonly pickup: LocationContext;
  readonly destination: LocationContext;
}

/**
 * Coverage is intra-city (decisions.md section 2): pickup and destination must lie in the same
 * service area, else OUTSIDE_COVERAGE. Only then is the caller's expected city compared with the
 * destination's (CITY_MISMATCH): a destination we cannot serve is reported as such even when the
 * caller also guessed its city wrong, because no city code would make it deliverable.
 */
export function resolveCoverage(map: CityMap, pickup: Coordinate, destination: Coordinate, expectedCityCode?: string): Coverage {
  const from = map.contextOf(pickup);
  const to = map.contextOf(destination);
  if (!from) throw new FailedPreconditionError("OUTSIDE_COVERAGE", "the pickup is outside every service area");
  if (!to) throw new FailedPreconditionError("OUTSIDE_COVERAGE", "the destination is outside every service area");
  if (from.cityCode !== to.cityCode) {
    throw new FailedPreconditionError("OUTSIDE_COVERAGE", "pickup and destination are in different cities; deliveries are intra-city");
  }
  if (expectedCityCode !== undefined && expectedCityCode !== to.cityCode) {
    throw new FailedPreconditionError("CITY_MISMATCH", `the destination is in ${to.cityCode}, not ${expectedCityCode}`);
  }
  return { cityCode: to.cityCode, pickup: from, destination: to };
}
