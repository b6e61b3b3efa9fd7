import { ValidationError } from "@tawsil/errors";

/** Merchant, saved location and branch codes (merchant.proto). */
export const CODE_PATTERN = /^[A-Z0-9][A-Z0-9_-]{1,63}$/;
/** City codes of the contract, e.g. RUH (decisions.md section 7). */
export const CITY_CODE_PATTERN = /^[A-Z]{3}$/;

export function parseCode(field: string, value: string): string {
  if (!CODE_PATTERN.test(value)) throw new ValidationError(field, `must match ${CODE_PATTERN.source}`);
  return value;
}

export function parseCityCode(field: string, value: string): string {
  if (!CITY_CODE_PATTERN.test(value)) throw new ValidationError(field, `must match ${CITY_CODE_PATTERN.source}`);
  return value;
}

/**
 * A human-readable name: trimmed, 1 to `max` characters, no control characters (they would
 * corrupt CLI output and logs).
 */
export function parseName(field: string, value: string, max = 200): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) throw new ValidationError(field, "is required");
  if (trimmed.length > max) throw new ValidationError(field, `must be at most ${max} characters`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw new ValidationError(field, "must not contain control characters");
  return trimmed;
}
