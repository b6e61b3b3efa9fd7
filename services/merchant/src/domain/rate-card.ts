import { isRequirement, REQUIREMENTS, type RateCardTerms, type RequirementSurcharge } from "@tawsil/domain";
import { ValidationError } from "@tawsil/errors";

export type { RateCardTerms, RequirementSurcharge };

/** The input shape: the proto RateCard's term fields, unchecked. */
export type RateCardTermsInput = { readonly [K in keyof Omit<RateCardTerms, "requirementSurcharges">]: string } & {
  readonly requirementSurcharges: readonly RequirementSurcharge[];
};

/** Non-negative decimals that fit the columns: numeric(12,2) for amounts, numeric(6,3) for km, kg and percent. */
const AMOUNT = { pattern: /^(0|[1-9]\d{0,9})(\.\d{1,2})?$/, scale: 2, rule: "a non-negative amount with at most 10 integer digits and 2 decimals" };
const MEASURE = { pattern: /^(0|[1-9]\d{0,2})(\.\d{1,3})?$/, scale: 3, rule: "a non-negative number below 1000 with at most 3 decimals" };

function decimal(field: string, value: string, kind: typeof AMOUNT): string {
  if (!kind.pattern.test(value)) throw new ValidationError(field, `must be ${kind.rule}, e.g. "12.50"`);
  const [whole, fraction = ""] = value.split(".");
  return `${whole}.${fraction.padEnd(kind.scale, "0")}`;
}

export function parseRateCardTerms(field: string, input: RateCardTermsInput | undefined): RateCardTerms {
  if (!input) throw new ValidationError(field, "is required");
  const at = (name: string) => `${field}.${name}`;
  const codFeePercent = decimal(at("cod_fee_percent"), input.codFeePercent, MEASURE);
  if (Number(codFeePercent) > 100) throw new ValidationError(at("cod_fee_percent"), "must be at most 100");
  return {
    baseFee: decimal(at("base_fee"), input.baseFee, AMOUNT),
    includedKm: decimal(at("included_km"), input.includedKm, MEASURE),
    perKmFee: decimal(at("per_km_fee"), input.perKmFee, AMOUNT),
    includedWeightKg: decimal(at("included_weight_kg"), input.includedWeightKg, MEASURE),
    perKgFee: decimal(at("per_kg_fee"), input.perKgFee, AMOUNT),
    codFeePercent,
    codFeeMinimum: decimal(at("cod_fee_minimum"), input.codFeeMinimum, AMOUNT),
    maxCodAmount: decimal(at("max_cod_amount"), input.maxCodAmount, AMOUNT),
    requirementSurcharges: parseSurcharges(at("requirement_surcharges"), input.requirementSurcharges),
  };
}

function parseSurcharges(field: string, surcharges: readonly RequirementSurcharge[]): RequirementSurcharge[] {
  const seen = new Set<string>();
  return surcharges.map((surcharge, i) => {
    const at = `${field}[${i}]`;
    if (!isRequirement(surcharge.requirement)) {
      throw new ValidationError(`${at}.requirement`, `must be one of ${REQUIREMENTS.join(", ")}`);
    }
    if (seen.has(surcharge.requirement)) throw new ValidationError(`${at}.requirement`, `${surcharge.requirement} is listed twice`);
    seen.add(surcharge.requirement);
    return { requirement: surcharge.requirement, fee: decimal(`${at}.fee`, surcharge.fee, AMOUNT) };
  });
}
