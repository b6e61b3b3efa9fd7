import { REQUIREMENTS, type Requirement } from "@tawsil/domain";
import { describe, expect, it } from "vitest";
import type { Carrier, CarrierService, Catalogue } from "./catalogue";
import { evaluateEligibility } from "./eligibility";
import type { EligibilityQuery } from "./parcel";
import type { ServiceLevel } from "./service-level";

const PERSONAL: Requirement[] = ["FRAGILE", "SIGNATURE_ON_DELIVERY", "PIN_ON_DELIVERY", "ID_VERIFICATION", "NO_CONTACT"];

function service(level: ServiceLevel, limits: { kg: number; mm: number; cod: boolean; requirements: Requirement[] }, extra: Partial<CarrierService> = {}): CarrierService {
  return {
    id: `${level}-${Math.random()}`,
    level,
    maxWeightGrams: limits.kg * 1000,
    maxLongestSideMm: limits.mm,
    supportsCod: limits.cod,
    requirements: new Set(limits.requirements),
    cities: new Set(["RUH", "JED"]),
    active: true,
    ...extra,
  };
}

function carrier(code: string, services: CarrierService[], active = true): Carrier {
  return { id: `id-${code}`, code, active, services };
}

/** One carrier with every level; limits as in the sandbox catalogue. Largest first, to prove order does not matter. */
const FLEET: Catalogue = {
  carriers: [
    carrier("ALL", [
      service("COLD_CHAIN_VAN", { kg: 300, mm: 2000, cod: false, requirements: ["COLD_CHAIN", "LARGE_VEHICLE", "FRAGILE", "KEEP_UPRIGHT"] }),
      service("VAN", { kg: 500, mm: 3000, cod: true, requirements: ["FRAGILE", "KEEP_UPRIGHT", "LARGE_VEHICLE", "SIGNATURE_ON_DELIVERY"] }),
      service("CAR", { kg: 30, mm: 1000, cod: true, requirements: [...PERSONAL, "KEEP_UPRIGHT"] }),
      service("BIKE", { kg: 5, mm: 450, cod: true, requirements: PERSONAL }),
    ]),
  ],
};

type QueryOverrides = Partial<Omit<EligibilityQuery, "requirements">> & { requirements?: Requirement[] };

/** 1 kg, 30 cm, prepaid, in Riyadh, unless overridden. */
function query(overrides: QueryOverrides = {}): EligibilityQuery {
  return { cityCode: "RUH", weightGrams: 1000, longestSideMm: 300, cashOnDelivery: false, ...overrides, requirements: new Set(overrides.requirements ?? []) };
}

function levelFor(catalogue: Catalogue, q: EligibilityQuery): ServiceLevel | "none" {
  const verdict = evaluateEligibility(catalogue, q);
  return verdict.eligible ? verdict.level : "none";
}

describe("eligibility matrix", () => {
  const rows: [string, QueryOverrides, ServiceLevel | "none"][] = [
    // weight, limits inclusive
    ["weight at the bike limit", { weightGrams: 5000 }, "BIKE"],
    ["one gram over the bike limit", { weightGrams: 5001 }, "CAR"],
    ["weight at the car limit", { weightGrams: 30_000 }, "CAR"],
    ["one gram over the car limit", { weightGrams: 30_001 }, "VAN"],
    ["weight at the van limit", { weightGrams: 500_000 }, "VAN"],
    ["heavier than every vehicle", { weightGrams: 500_001 }, "none"],
    // longest side, limits inclusive; 0 means no dimensions were given
    ["no dimensions", { longestSideMm: 0 }, "BIKE"],
    ["longest side at the bike limit", { longestSideMm: 450 }, "BIKE"],
    ["longest side over the bike limit", { longestSideMm: 451 }, "CAR"],
    ["longest side over the car limit", { longestSideMm: 1001 }, "VAN"],
    ["longest side at the van limit", { longestSideMm: 3000 }, "VAN"],
    ["longer than every vehicle", { longestSideMm: 3001 }, "none"],
    // each requirement of the catalogue
    ["FRAGILE", { requirements: ["FRAGILE"] }, "BIKE"],
    ["KEEP_UPRIGHT", { requirements: ["KEEP_UPRIGHT"] }, "CAR"],
    ["COLD_CHAIN", { requirements: ["COLD_CHAIN"] }, "COLD_CHAIN_VAN"],
    ["LARGE_VEHICLE", { requirements: ["LARGE_VEHICLE"] }, "VAN"],
    ["SIGNATURE_ON_DELIVERY", { requirements: ["SIGNATURE_ON_DELIVERY"] }, "BIKE"],
    ["PIN_ON_DELIVERY", { requirements: ["PIN_ON_DELIVERY"] }, "BIKE"],
    ["ID_VERIFICATION", { requirements: ["ID_VERIFICATION"] }, "BIKE"],
    ["NO_CONTACT", { requirements: ["NO_CONTACT"] }, "BIKE"],
    // combinations: every requirement must be honoured by the same service
    ["FRAGILE and KEEP_UPRIGHT", { requirements: ["FRAGILE", "KEEP_UPRIGHT"] }, "CAR"],
    ["COLD_CHAIN and LARGE_VEHICLE: a cold-chain van is a van", { requirements: ["COLD_CHAIN", "LARGE_VEHICLE"] }, "COLD_CHAIN_VAN"],
    ["LARGE_VEHICLE and NO_CONTACT: no van offers it", { requirements: ["LARGE_VEHICLE", "NO_CONTACT"] }, "none"],
    ["COLD_CHAIN and PIN_ON_DELIVERY: the cold-chain van does not offer it", { requirements: ["COLD_CHAIN", "PIN_ON_DELIVERY"] }, "none"],
    ["requirement and weight together", { requirements: ["KEEP_UPRIGHT"], weightGrams: 40_000 }, "VAN"],
    ["COLD_CHAIN over the cold-chain limit", { requirements: ["COLD_CHAIN"], weightGrams: 300_001 }, "none"],
    // cash on delivery
    ["cash on delivery, small parcel", { cashOnDelivery: true }, "BIKE"],
    ["cash on delivery, heavy parcel", { cashOnDelivery: true, weightGrams: 200_000 }, "VAN"],
    ["COLD_CHAIN prepaid", { requirements: ["COLD_CHAIN"], cashOnDelivery: false }, "COLD_CHAIN_VAN"],
    ["COLD_CHAIN with cash on delivery: the only cold-chain van takes no cash", { requirements: ["COLD_CHAIN"], cashOnDelivery: true }, "none"],
    // city
    ["another served city", { cityCode: "JED" }, "BIKE"],
    ["a city no service serves", { cityCode: "MED" }, "none"],
  ];

  it.each(rows)("%s", (_name, overrides, expected) => {
    expect(levelFor(FLEET, query(overrides))).toBe(expected);
  });

  it("has a row for every requirement of the catalogue", () => {
    const covered = new Set(rows.flatMap(([, overrides]) => overrides.requirements ?? []));
    expect([...covered].sort()).toEqual([...REQUIREMENTS].sort());
  });
});

describe("evaluateEligibility", () => {
  it("ignores every service of an inactive carrier", () => {
    const catalogue = { carriers: [carrier("OFF", [service("BIKE", { kg: 5, mm: 450, cod: true, requirements: [] })], false)] };
    expect(levelFor(catalogue, query())).toBe("none");
    const withActive = { carriers: [...catalogue.carriers, carrier("ON", [service("CAR", { kg: 30, mm: 1000, cod: true, requirements: [] })])] };
    expect(levelFor(withActive, query())).toBe("CAR");
  });

  it("ignores an inactive service of an active carrier", () => {
    const catalogue = {
      carriers: [
        carrier("MIX", [
          service("BIKE", { kg: 5, mm: 450, cod: true, requirements: [] }, { active: false }),
          service("CAR", { kg: 30, mm: 1000, cod: true, requirements: [] }),
        ]),
      ],
    };
    expect(levelFor(catalogue, query())).toBe("CAR");
  });

  it("chooses the smallest level across carriers and lists every eligible service smallest first", () => {
    const van = service("VAN", { kg: 500, mm: 3000, cod: true, requirements: [] });
    const car = service("CAR", { kg: 30, mm: 1000, cod: true, requirements: [] });
    const otherCar = service("CAR", { kg: 30, mm: 1000, cod: true, requirements: [] });
    const catalogue = { carriers: [carrier("BIG", [van, car]), carrier("SMALL", [otherCar])] };
    const verdict = evaluateEligibility(catalogue, query());
    expect(verdict).toEqual({
      eligible: true,
      level: "CAR",
      services: [
        { carrier: catalogue.carriers[0], service: car },
        { carrier: catalogue.carriers[1], service: otherCar },
        { carrier: catalogue.carriers[0], service: van },
      ],
    });
  });

  it("never lets a vehicle honour COLD_CHAIN or LARGE_VEHICLE it cannot, whatever the data claims", () => {
    const everything = [...REQUIREMENTS];
    const catalogue = {
      carriers: [
        carrier("CLAIMS", [
          service("BIKE", { kg: 5, mm: 450, cod: true, requirements: everything }),
          service("CAR", { kg: 30, mm: 1000, cod: true, requirements: everything }),
          service("VAN", { kg: 500, mm: 3000, cod: true, requirements: everything }),
        ]),
      ],
    };
    expect(levelFor(catalogue, query({ requirements: ["COLD_CHAIN"] }))).toBe("none");
    expect(levelFor(catalogue, query({ requirements: ["LARGE_VEHICLE"] }))).toBe("VAN");
    expect(levelFor(catalogue, query({ requirements: ["FRAGILE", "NO_CONTACT"] }))).toBe("BIKE");
  });

  it("answers not eligible, and nothing else, when no service can carry the parcel", () => {
    expect(evaluateEligibility({ carriers: [] }, query())).toEqual({ eligible: false });
    expect(evaluateEligibility(FLEET, query({ cityCode: "TIF" }))).toEqual({ eligible: false });
  });
});
