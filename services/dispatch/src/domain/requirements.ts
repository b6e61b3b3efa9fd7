import type { Requirement } from "@tawsil/domain";
import type { ServiceLevel } from "./service-level";

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
