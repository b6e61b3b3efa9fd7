import { isRequirement, type Requirement } from "@tawsil/domain";
import type { Carrier } from "../../domain/catalogue";
import type { LoadedCatalogue } from "../../app/ports";
import type { PrismaClient } from "../prisma/generated/client";

/** Reads the whole carrier catalogue: a few dozen rows, loaded in one query and cached by the caller. */
export class CatalogueRepository {
  constructor(private readonly db: PrismaClient) {}

  async load(): Promise<LoadedCatalogue> {
    const rows = await this.db.carrier.findMany({ include: { services: { orderBy: { id: "asc" } } }, orderBy: { code: "asc" } });
    const unknown = new Set<string>();
    const carriers: Carrier[] = rows.map((row) => ({
      id: row.id,
      code: row.code,
      active: row.active,
      services: row.services.map((service) => ({
        id: service.id,
        level: service.serviceLevel,
        maxWeightGrams: service.maxWeightGrams,
        maxLongestSideMm: service.maxLongestSideMm,
        supportsCod: service.supportsCod,
        requirements: knownRequirements(service.supportedRequirements, unknown),
        cities: new Set(service.cities),
        active: service.active,
      })),
    }));
    return { catalogue: { carriers }, unknownRequirements: [...unknown].sort() };
  }
}

/** A value the code does not know cannot be honoured: dropping it only narrows eligibility. */
function knownRequirements(values: readonly string[], unknown: Set<string>): ReadonlySet<Requirement> {
  const known = new Set<Requirement>();
  for (const value of values) {
    if (isRequirement(value)) known.add(value);
    else unknown.add(value);
  }
  return known;
}
