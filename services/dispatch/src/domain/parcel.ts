import { isRequirement, type Requirement } from "@tawsil/domain";
import { ValidationError } from "@tawsil/errors";

/** What must be carried, and where, once validated. */
export interface EligibilityQuery {
  readonly cityCode: string;
  readonly weightGrams: number;
  /** 0 when no item has dimensions: then only the weight limits the choice. */
  readonly longestSideMm: number;
  readonly requirements: ReadonlySet<Requirement>;
  readonly cashOnDelivery: boolean;
}

export interface EligibilityQueryInput {
  readonly cityCode: string;
  readonly parcel:
    | {
        readonly totalWeightGrams: bigint;
        readonly longestSideMm: number;
        readonly requirements: readonly string[];
        readonly cashOnDelivery: boolean;
      }
    | undefined;
}

const CITY_CODE = /^[A-Z]{3}$/;

/**
 * Validates a caller's question. Malformed input is a caller's bug and fails with a
 * ValidationError naming the field; a well-formed city that dispatch does not serve, or a parcel
 * too heavy for every vehicle, is a valid question whose answer is "not eligible".
 */
export function parseEligibilityQuery(input: EligibilityQueryInput): EligibilityQuery {
  if (!CITY_CODE.test(input.cityCode)) throw new ValidationError("city_code", "must be three capital letters, for example RUH");
  const { parcel } = input;
  if (!parcel) throw new ValidationError("parcel", "is required");
  if (parcel.totalWeightGrams <= 0n) throw new ValidationError("parcel.total_weight_grams", "must be positive");
  if (parcel.totalWeightGrams > BigInt(Number.MAX_SAFE_INTEGER)) throw new ValidationError("parcel.total_weight_grams", "is out of range");
  if (!Number.isInteger(parcel.longestSideMm) || parcel.longestSideMm < 0) {
    throw new ValidationError("parcel.longest_side_mm", "must be 0 (no dimensions) or positive");
  }
  const requirements = new Set<Requirement>();
  parcel.requirements.forEach((value, index) => {
    if (!isRequirement(value)) throw new ValidationError(`parcel.requirements[${index}]`, "is not in the requirements catalogue");
    requirements.add(value);
  });
  return {
    cityCode: input.cityCode,
    weightGrams: Number(parcel.totalWeightGrams),
    longestSideMm: parcel.longestSideMm,
    requirements,
    cashOnDelivery: parcel.cashOnDelivery,
  };
}
