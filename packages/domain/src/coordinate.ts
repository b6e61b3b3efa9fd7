import { ValidationError } from "@tawsil/errors";

/** A WGS 84 point in integer microdegrees, the contract's 0.000001 step kept exact. */
export interface Coordinate {
  readonly latitudeMicro: number;
  readonly longitudeMicro: number;
}

export function parseCoordinate(field: string, value: Coordinate | undefined): Coordinate {
  if (!value) throw new ValidationError(field, "is required");
  const { latitudeMicro, longitudeMicro } = value;
  if (!Number.isInteger(latitudeMicro) || Math.abs(latitudeMicro) > 90_000_000) {
    throw new ValidationError(`${field}.latitude_micro`, "must be an integer from -90000000 to 90000000");
  }
  if (!Number.isInteger(longitudeMicro) || Math.abs(longitudeMicro) > 180_000_000) {
    throw new ValidationError(`${field}.longitude_micro`, "must be an integer from -180000000 to 180000000");
  }
  return { latitudeMicro, longitudeMicro };
}

/** Microdegrees as exact decimal degrees ("46.675300"), without passing through binary floating point. */
export function formatDegrees(micro: number): string {
  const sign = micro < 0 ? "-" : "";
  const digits = String(Math.abs(micro)).padStart(7, "0");
  return `${sign}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}
