import type { Requirement } from "@tawsil/domain";
import type { ServiceLevel } from "./service-level";

/** One offering of a carrier, as eligibility sees it. Weights in grams, lengths in millimetres. */
export interface CarrierService {
  readonly id: string;
  readonly level: ServiceLevel;
  readonly maxWeightGrams: number;
  readonly maxLongestSideMm: number;
  readonly supportsCod: boolean;
  readonly requirements: ReadonlySet<Requirement>;
  readonly cities: ReadonlySet<string>;
  readonly active: boolean;
}

/** A carrier and its services. Its id and code stay inside dispatch. */
export interface Carrier {
  readonly id: string;
  readonly code: string;
  readonly active: boolean;
  readonly services: readonly CarrierService[];
}

export interface Catalogue {
  readonly carriers: readonly Carrier[];
}

export const EMPTY_CATALOGUE: Catalogue = { carriers: [] };
