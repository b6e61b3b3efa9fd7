import { ValidationError } from "@tawsil/errors";
import { isUuid } from "@tawsil/domain";

const CITY_CODE = /^[A-Z]{3}$/;

/** A merchant company's uuid, lower-cased. */
export function parseMerchantId(field: string, value: string): string {
  if (!isUuid(value)) throw new ValidationError(field, "must be a uuid");
  return value.toLowerCase();
}

/** An optional city code: "" means not given; otherwise three upper-case letters (RUH, JED, ...). */
export function parseOptionalCityCode(field: string, value: string): string | undefined {
  if (value === "") return undefined;
  if (!CITY_CODE.test(value)) throw new ValidationError(field, "must be three upper-case letters, e.g. RUH");
  return value;
}
