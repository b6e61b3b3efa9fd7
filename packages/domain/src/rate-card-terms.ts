/** One requirement's extra fee on a rate card (SAR decimal string, VAT excluded). */
export interface RequirementSurcharge {
  readonly requirement: string;
  readonly fee: string;
}

/**
 * A merchant's commercial terms, as merchant keeps them and pricing applies them: amounts are SAR
 * excluding VAT, as canonical decimal strings, so no binary rounding creeps in between the two.
 */
export interface RateCardTerms {
  readonly baseFee: string;
  readonly includedKm: string;
  readonly perKmFee: string;
  readonly includedWeightKg: string;
  readonly perKgFee: string;
  readonly codFeePercent: string;
  readonly codFeeMinimum: string;
  readonly maxCodAmount: string;
  readonly requirementSurcharges: readonly RequirementSurcharge[];
}
