import { isRequirement, REQUIREMENTS } from "@tawsil/domain";
import { ValidationError } from "@tawsil/errors";
import { money } from "./money";

/** What is carried, as far as eligibility and price are concerned. */
export interface Parcel {
  readonly totalWeightGrams: number;
  readonly longestSideMm: number;
  readonly requirements: readonly string[];
  readonly cashOnDelivery: boolean;
}

export interface ParcelInput {
  readonly totalWeightGrams: bigint;
  readonly longestSideMm: number;
  readonly requirements: readonly string[];
  readonly cashOnDelivery: boolean;
}

/** At most 10 integer digits and 2 decimals, like the merchant's amounts; "" means none. */
const COD_AMOUNT = /^(0|[1-9]\d{0,9})(\.\d{1,2})?$/;

export function parseCodAmount(field: string, value: string): string {
  if (value === "") return "0";
  if (!COD_AMOUNT.test(value)) throw new ValidationError(field, 'must be a non-negative SAR amount with at most 2 decimals, e.g. "150.00"');
  return value;
}

/** A parcel whose COD flag agrees with the amount to collect (an inconsistent pair is refused). */
export function parseParcel(field: string, input: ParcelInput | undefined, codAmount: string): Parcel {
  if (!input) throw new ValidationError(field, "is required");
  if (input.totalWeightGrams <= 0n || input.totalWeightGrams > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ValidationError(`${field}.total_weight_grams`, "must be a positive number of grams");
  }
  if (!Number.isInteger(input.longestSideMm) || input.longestSideMm < 0) {
    throw new ValidationError(`${field}.longest_side_mm`, "must be 0 (unknown) or a positive number of millimetres");
  }
  const seen = new Set<string>();
  input.requirements.forEach((requirement, i) => {
    if (!isRequirement(requirement)) {
      throw new ValidationError(`${field}.requirements[${i}]`, `must be one of ${REQUIREMENTS.join(", ")}`);
    }
    if (seen.has(requirement)) throw new ValidationError(`${field}.requirements[${i}]`, `${requirement} is listed twice`);
    seen.add(requirement);
  });
  const collects = !money(codAmount).isZero();
  if (input.cashOnDelivery !== collects) {
    throw new ValidationError(`${field}.cash_on_delivery`, "must be true exactly when cod_amount is above 0");
  }
  return {
    totalWeightGrams: Number(input.totalWeightGrams),
    longestSideMm: input.longestSideMm,
    requirements: [...input.requirements],
    cashOnDelivery: input.cashOnDelivery,
  };
}
