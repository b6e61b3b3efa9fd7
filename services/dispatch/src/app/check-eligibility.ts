import type { Catalogue } from "../domain/catalogue";
import { evaluateEligibility } from "../domain/eligibility";
import { parseEligibilityQuery, type EligibilityQueryInput } from "../domain/parcel";
import type { ServiceLevel } from "../domain/service-level";

/** The verdict other services get: whether, and at which level. Never which carrier. */
export type EligibilityVerdict = { readonly eligible: true; readonly level: ServiceLevel } | { readonly eligible: false };

/** Answers "can some carrier carry this parcel in this city?" from the cached catalogue. */
export class CheckEligibility {
  constructor(private readonly catalogue: { current(): Catalogue }) {}

  execute(input: EligibilityQueryInput): EligibilityVerdict {
    const verdict = evaluateEligibility(this.catalogue.current(), parseEligibilityQuery(input));
    return verdict.eligible ? { eligible: true, level: verdict.level } : { eligible: false };
  }
}
