/** Vehicle kinds, smallest first: eligibility chooses the first that can carry a parcel. */
export const SERVICE_LEVELS = ["BIKE", "CAR", "VAN", "COLD_CHAIN_VAN"] as const;

export type ServiceLevel = (typeof SERVICE_LEVELS)[number];

/** Position in SERVICE_LEVELS: lower is smaller (and cheaper to run). */
export function rankOf(level: ServiceLevel): number {
  return SERVICE_LEVELS.indexOf(level);
}
