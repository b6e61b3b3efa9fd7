import type { Parcel } from "../domain/parcel";
import type { RateCardTerms } from "../domain/price";
import type { ServiceLevel } from "@tawsil/domain";

/** A version of a merchant's commercial terms, as the shipment must freeze it. */
export interface RateCard {
  readonly id: string;
  readonly version: number;
  readonly terms: RateCardTerms;
}

/** The merchant service's rate cards. Fails with FailedPreconditionError NO_RATE_CARD or DependencyUnavailableError. */
export interface RateCardSource {
  current(merchantId: string, signal: AbortSignal): Promise<RateCard>;
}

export type Eligibility = { readonly eligible: false } | { readonly eligible: true; readonly serviceLevel: ServiceLevel };

/** Whether a service with a driver on shift in the city can carry the parcel, and its level (the staffing dispatch publishes). */
export interface EligibilityChecker {
  check(cityCode: string, parcel: Parcel, signal: AbortSignal): Promise<Eligibility>;
}

/** Where a loss-making quote is counted. It learns the service level only, never an amount. */
export interface MarginMonitor {
  negativeMargin(level: ServiceLevel): void;
}
