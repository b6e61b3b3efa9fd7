import type { Catalogue } from "../domain/catalogue";
import { evaluateEligibility } from "../domain/eligibility";
import { parseEligibilityQuery, type EligibilityQueryInput } from "../domain/parcel";
import type { ServiceLevel } from "../domain/service-level";

/** The verdict other services get: whether, and at which level. Never which carrier. */
export type EligibilityVerdict = { readonly eligible: true; readonly level: ServiceLevel } | { readonly eligible: false };

/** Whether a service has a driver on shift in a city (ActiveDriverIndex). */
export interface ActiveDrivers {
  has(cityCode: string, carrierServiceId: string): boolean;
}

/**
 * Answers "can some carrier carry this parcel in this city, with a driver on shift?" from memory:
 * the cached catalogue and the active driver index (decisions.md section 2: at least one active
 * driver, free or busy, of an eligible service). The level is the smallest of the services that
 * have one, since only those can take the shipment.
 */
export class CheckEligibility {
  constructor(
    private readonly catalogue: { current(): Catalogue },
    private readonly activeDrivers: ActiveDrivers,
  ) {}

  execute(input: EligibilityQueryInput): EligibilityVerdict {
    const query = parseEligibilityQuery(input);
    const verdict = evaluateEligibility(this.catalogue.current(), query);
    if (!verdict.eligible) return { eligible: false };
    // Services come smallest level first, so the first staffed one gives the level.
    const staffed = verdict.services.find(({ service }) => this.activeDrivers.has(query.cityCode, service.id));
    return staffed ? { eligible: true, level: staffed.service.level } : { eligible: false };
  }
}
