import type { Requirement } from "./requirements";
import { SERVICE_LEVELS, type ServiceLevel } from "./service-levels";

/**
 * What one carrier service can carry, without saying whose it is: the part of dispatch's
 * catalogue that eligibility reads. Dispatch judges its own services with it, and pricing judges
 * the staffed capabilities dispatch publishes (dispatch.city-staffing.v1), so the rule lives here
 * once. Weights in grams, lengths in millimetres, limits inclusive.
 */
export interface ServiceCapability {
  readonly level: ServiceLevel;
  readonly maxWeightGrams: number;
  readonly maxLongestSideMm: number;
  readonly supportsCod: boolean;
  readonly requirements: ReadonlySet<Requirement>;
}

/** What must be carried, once validated; a longest side of 0 means no item has dimensions. */
export interface ParcelNeeds {
  readonly weightGrams: number;
  readonly longestSideMm: number;
  readonly requirements: Iterable<Requirement>;
  readonly cashOnDelivery: boolean;
}

/**
 * Requirements that only some vehicles can honour, whatever a carrier declares (decisions.md
 * section 2): COLD_CHAIN needs a refrigerated van; LARGE_VEHICLE needs a van, and a cold-chain van
 * is a van. A catalogue row that claims otherwise (a bike with COLD_CHAIN) is a data mistake
 * that must not make a bike eligible.
 */
const VEHICLE_BOUND: Partial<Record<Requirement, readonly ServiceLevel[]>> = {
  COLD_CHAIN: ["COLD_CHAIN_VAN"],
  LARGE_VEHICLE: ["VAN", "COLD_CHAIN_VAN"],
};

export function levelCanHonour(level: ServiceLevel, requirement: Requirement): boolean {
  return VEHICLE_BOUND[requirement]?.includes(level) ?? true;
}

/** Position in SERVICE_LEVELS: lower is smaller (and cheaper to run). */
export function rankOf(level: ServiceLevel): number {
  return SERVICE_LEVELS.indexOf(level);
}

/**
 * Whether the service can carry the parcel: the weight and the longest side within its limits,
 * cash collected when the parcel is cash on delivery, and every requirement honoured, as declared
 * and as its vehicle allows. Whether it is active and serves the city is the caller's question.
 */
export function capabilityCarries(capability: ServiceCapability, parcel: ParcelNeeds): boolean {
  if (parcel.weightGrams > capability.maxWeightGrams || parcel.longestSideMm > capability.maxLongestSideMm) return false;
  if (parcel.cashOnDelivery && !capability.supportsCod) return false;
  for (const requirement of parcel.requirements) {
    if (!capability.requirements.has(requirement) || !levelCanHonour(capability.level, requirement)) return false;
  }
  return true;
}

/** The smallest level among the capabilities that can carry the parcel; undefined when none can. */
export function smallestLevelCarrying(capabilities: Iterable<ServiceCapability>, parcel: ParcelNeeds): ServiceLevel | undefined {
  let best: ServiceLevel | undefined;
  for (const capability of capabilities) {
    if (!capabilityCarries(capability, parcel)) continue;
    if (best === undefined || rankOf(capability.level) < rankOf(best)) best = capability.level;
  }
  return best;
}
