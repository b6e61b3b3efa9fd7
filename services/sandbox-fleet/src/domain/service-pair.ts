import type { ServiceLevel } from "@tawsil/domain";

/** A carrier's service (carrier and vehicle) in a city: what the fleet staffs, and the unit of demand. */
export interface ServicePair {
  readonly cityCode: string;
  readonly carrierCode: string;
  readonly vehicle: ServiceLevel;
}

export const pairKey = (pair: ServicePair): string => `${pair.cityCode}/${pair.carrierCode}/${pair.vehicle}`;

/**
 * A fleet driver's name: the pair and its index, so a restart finds the same drivers per service
 * and city ("Sandbox SAQR BIKE RUH 3"). Index 1 and up.
 */
export const driverName = (pair: ServicePair, index: number): string => `Sandbox ${pair.carrierCode} ${pair.vehicle} ${pair.cityCode} ${index}`;

const NAME = /^Sandbox (\S+) (\S+) (\S+) (\d+)$/;

/** The index a fleet driver's name gives it within its pair; undefined for a name of another scheme. */
export function indexInName(pair: ServicePair, name: string): number | undefined {
  const match = NAME.exec(name);
  if (!match || match[1] !== pair.carrierCode || match[2] !== pair.vehicle || match[3] !== pair.cityCode) return undefined;
  const index = Number(match[4]);
  return index >= 1 ? index : undefined;
}
