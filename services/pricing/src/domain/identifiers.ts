import { ValidationError } from "@tawsil/errors";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CITY_CODE = /^[A-Z]{3}$/;

/** A merchant company's uuid, lower-cased. */
export function parseMerchantId(field: string, value: string): string {
  if (!UUID.test(value)) throw new ValidationError(field, "must be a uuid");
  return value.toLowerCase();
}

/** An optional city code: "" means not given; otherwise three upper-case letters (RUH, JED, ...). */
export function parseOptionalCityCode(field: string, value: string): string | undefined {
  if (value === "") return undefined;
  if (!CITY_CODE.test(value)) throw new ValidationError(field, "must be three upper-case letters, e.g. RUH");
  return value;
}
