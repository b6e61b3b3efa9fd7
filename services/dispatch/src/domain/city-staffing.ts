import type { ServiceCapability } from "@tawsil/domain";
import type { Catalogue } from "./catalogue";

/** What the staffed services of one city can carry: the fact dispatch publishes for eligibility. */
export interface CityStaffing {
  readonly cityCode: string;
  readonly services: readonly ServiceCapability[];
}

/**
 * Every city the catalogue names (served or not by an active service) and every city with a driver
 * on shift, each with the capabilities of the active services of active carriers that have a
 * driver on shift there, duplicates removed. A city nobody staffs gets an empty list, so a
 * consumer forgets what it knew of it. `staffed(city, serviceId)` is the active driver index.
 */
export function cityStaffing(catalogue: Catalogue, staffedCities: Iterable<string>, staffed: (cityCode: string, serviceId: string) => boolean): CityStaffing[] {
  const cities = new Set<string>(staffedCities);
  for (const carrier of catalogue.carriers) for (const service of carrier.services) for (const city of service.cities) cities.add(city);
  return [...cities].sort().map((cityCode) => {
    const byKey = new Map<string, ServiceCapability>();
    for (const carrier of catalogue.carriers) {
      if (!carrier.active) continue;
      for (const service of carrier.services) {
        if (!service.active || !service.cities.has(cityCode) || !staffed(cityCode, service.id)) continue;
        const capability: ServiceCapability = {
          level: service.level,
          maxWeightGrams: service.maxWeightGrams,
          maxLongestSideMm: service.maxLongestSideMm,
          supportsCod: service.supportsCod,
          requirements: new Set([...service.requirements].sort()),
        };
        byKey.set(capabilityKey(capability), capability);
      }
    }
    return { cityCode, services: [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, capability]) => capability) };
  });
}

/** One string per distinct capability: equal strings, equal capabilities (requirements sorted). */
export function capabilityKey(capability: ServiceCapability): string {
  return [capability.level, capability.maxWeightGrams, capability.maxLongestSideMm, capability.supportsCod, [...capability.requirements].sort().join("+")].join("|");
}

/** One string per city state, to publish only what changed. */
export function staffingKey(staffing: CityStaffing): string {
  return staffing.services.map(capabilityKey).join(",");
}
