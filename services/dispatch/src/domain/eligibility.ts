import type { Carrier, CarrierService, Catalogue } from "./catalogue";
import type { EligibilityQuery } from "./parcel";
import { capabilityCarries } from "@tawsil/domain";
import { rankOf, type ServiceLevel } from "./service-level";

/** A service that can carry the parcel, with its carrier: for dispatch's own use only. */
export interface EligibleService {
  readonly carrier: Carrier;
  readonly service: CarrierService;
}

export type Eligibility =
  | { readonly eligible: true; readonly level: ServiceLevel; readonly services: readonly EligibleService[] }
  | { readonly eligible: false };

/**
 * Whether one service of an active carrier can carry the parcel: it is active, serves the city,
 * and its capability carries the parcel (@tawsil/domain's capabilityCarries, the rule pricing
 * applies to the staffed capabilities dispatch publishes).
 */
export function canCarry(service: CarrierService, query: EligibilityQuery): boolean {
  return service.active && service.cities.has(query.cityCode) && capabilityCarries(service, query);
}

/**
 * Every eligible service, smallest level first, and the level dispatch uses: the smallest one.
 * The order among services of one level is the catalogue's; choosing among them is driver choice.
 */
export function evaluateEligibility(catalogue: Catalogue, query: EligibilityQuery): Eligibility {
  const services = catalogue.carriers
    .filter((carrier) => carrier.active)
    .flatMap((carrier) => carrier.services.filter((service) => canCarry(service, query)).map((service) => ({ carrier, service })))
    .sort((a, b) => rankOf(a.service.level) - rankOf(b.service.level));
  const [smallest] = services;
  return smallest ? { eligible: true, level: smallest.service.level, services } : { eligible: false };
}
