/** Vehicle kinds, smallest first: eligibility chooses the first that can carry a parcel; pricing learns no more of carriers. */
export const SERVICE_LEVELS = ["BIKE", "CAR", "VAN", "COLD_CHAIN_VAN"] as const;

export type ServiceLevel = (typeof SERVICE_LEVELS)[number];
