import { REQUIREMENTS, smallestLevelCarrying, type Requirement } from "@tawsil/domain";
import { describe, expect, it } from "vitest";
import { CheckEligibility } from "../app/check-eligibility";
import type { Carrier, CarrierService, Catalogue } from "./catalogue";
import { cityStaffing } from "./city-staffing";
import type { ServiceLevel } from "./service-level";

function service(id: string, level: ServiceLevel, limits: { kg: number; mm: number; cod: boolean; requirements: Requirement[] }, extra: Partial<CarrierService> = {}): CarrierService {
  return {
    id,
    level,
    maxWeightGrams: limits.kg * 1000,
    maxLongestSideMm: limits.mm,
    supportsCod: limits.cod,
    requirements: new Set(limits.requirements),
    cities: new Set(["RUH", "JED", "DMM"]),
    active: true,
    ...extra,
  };
}

const carrier = (code: string, services: CarrierService[], active = true): Carrier => ({ id: `carrier-${code}`, code, active, services });

const CATALOGUE: Catalogue = {
  carriers: [
    carrier("SAQR", [
      service("saqr-cold", "COLD_CHAIN_VAN", { kg: 300, mm: 2000, cod: false, requirements: ["COLD_CHAIN", "LARGE_VEHICLE", "FRAGILE"] }),
      service("saqr-van", "VAN", { kg: 500, mm: 3000, cod: true, requirements: ["FRAGILE", "LARGE_VEHICLE", "SIGNATURE_ON_DELIVERY"] }),
      service("saqr-car", "CAR", { kg: 30, mm: 1000, cod: true, requirements: ["FRAGILE", "KEEP_UPRIGHT", "PIN_ON_DELIVERY"] }),
      // A data mistake: a bike claiming cold chain must not make a bike eligible for it.
      service("saqr-bike", "BIKE", { kg: 5, mm: 450, cod: true, requirements: ["FRAGILE", "COLD_CHAIN", "NO_CONTACT"] }),
    ]),
    // The same bike offering as Saqr's, from another carrier: published once.
    carrier("NAJM", [service("najm-bike", "BIKE", { kg: 5, mm: 450, cod: true, requirements: ["NO_CONTACT", "COLD_CHAIN", "FRAGILE"] })]),
    carrier("OFF", [service("off-car", "CAR", { kg: 1000, mm: 5000, cod: true, requirements: [...REQUIREMENTS] })], false),
    carrier("MIX", [service("mix-idle", "CAR", { kg: 1000, mm: 5000, cod: true, requirements: [...REQUIREMENTS] }, { active: false }), service("mix-mkk", "VAN", { kg: 50, mm: 500, cod: false, requirements: [] }, { cities: new Set(["MKK"]) })]),
  ],
};

/** On shift: Riyadh's bikes (both carriers), car and cold-chain van; Jeddah's car; the inactive ones everywhere; nobody in Dammam or Makkah. */
const ON_SHIFT = new Set(["RUH|saqr-bike", "RUH|najm-bike", "RUH|saqr-car", "RUH|saqr-cold", "JED|saqr-car", "RUH|off-car", "RUH|mix-idle", "JED|off-car"]);
const staffed = (city: string, serviceId: string) => ON_SHIFT.has(`${city}|${serviceId}`);
const cities = () => new Set([...ON_SHIFT].map((pair) => pair.split("|")[0]!));

describe("cityStaffing", () => {
  const states = cityStaffing(CATALOGUE, cities(), staffed);

  it("covers every city the catalogue names, each with the distinct capabilities of its staffed active services", () => {
    expect(states.map((state) => [state.cityCode, state.services.map((s) => s.level).sort()])).toEqual([
      ["DMM", []],
      ["JED", ["CAR"]],
      ["MKK", []],
      ["RUH", ["BIKE", "CAR", "COLD_CHAIN_VAN"]],
    ]);
  });

  it("names no carrier and no service", () => {
    const text = JSON.stringify(states, (_key, value: unknown) => (value instanceof Set ? [...value] : value));
    for (const word of ["SAQR", "NAJM", "saqr", "najm", "carrier", "off-car", "mix"]) expect(text).not.toContain(word);
  });

  it("judged by the shared rule, gives the verdict dispatch's own CheckEligibility gives, for every city and parcel tried", () => {
    const check = new CheckEligibility({ current: () => CATALOGUE }, { has: staffed });
    const byCity = new Map(states.map((state) => [state.cityCode, state.services]));
    const requirementSets: Requirement[][] = [[], ["FRAGILE"], ["COLD_CHAIN"], ["LARGE_VEHICLE"], ["NO_CONTACT"], ["KEEP_UPRIGHT", "PIN_ON_DELIVERY"], ["SIGNATURE_ON_DELIVERY"], ["ID_VERIFICATION"]];
    let compared = 0;
    for (const cityCode of ["RUH", "JED", "DMM", "MKK"]) {
      for (const grams of [1, 5_000, 5_001, 30_000, 30_001, 300_000, 600_000]) {
        for (const longestSideMm of [0, 450, 451, 1000, 2500]) {
          for (const cashOnDelivery of [false, true]) {
            for (const requirements of requirementSets) {
              const verdict = check.execute({ cityCode, parcel: { totalWeightGrams: BigInt(grams), longestSideMm, requirements, cashOnDelivery } });
              const published = smallestLevelCarrying(byCity.get(cityCode) ?? [], { weightGrams: grams, longestSideMm, requirements, cashOnDelivery });
              expect([cityCode, grams, longestSideMm, cashOnDelivery, requirements, published ?? "none"]).toEqual([cityCode, grams, longestSideMm, cashOnDelivery, requirements, verdict.eligible ? verdict.level : "none"]);
              compared++;
            }
          }
        }
      }
    }
    expect(compared).toBe(4 * 7 * 5 * 2 * requirementSets.length);
  });
});
