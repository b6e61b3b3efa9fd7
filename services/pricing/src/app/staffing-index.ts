import { isRequirement, smallestLevelCarrying, type ParcelNeeds, type ServiceCapability } from "@tawsil/domain";
import type { Parcel } from "../domain/parcel";
import type { Eligibility, EligibilityChecker } from "./ports";

/**
 * What each city's drivers on shift can carry, as dispatch last published it
 * (dispatch.city-staffing.v1), held in memory: eligibility is decided here, with the rule of
 * @tawsil/domain that dispatch applies to its own catalogue, and costs no call per quote. A city
 * dispatch never published is one nobody staffs.
 */
export class StaffingIndex implements EligibilityChecker {
  readonly #cities = new Map<string, readonly ServiceCapability[]>();

  /** Replaces a city's state with the one just published (the last message per city wins). */
  apply(cityCode: string, services: readonly ServiceCapability[]): void {
    this.#cities.set(cityCode, services);
  }

  async check(cityCode: string, parcel: Parcel): Promise<Eligibility> {
    const level = smallestLevelCarrying(this.#cities.get(cityCode) ?? [], needsOf(parcel));
    return level ? { eligible: true, serviceLevel: level } : { eligible: false };
  }
}

/** Pricing's parcel as the shared rule reads it (its requirements were validated by parseParcel). */
function needsOf(parcel: Parcel): ParcelNeeds {
  return {
    weightGrams: parcel.totalWeightGrams,
    longestSideMm: parcel.longestSideMm,
    requirements: parcel.requirements.filter(isRequirement),
    cashOnDelivery: parcel.cashOnDelivery,
  };
}
