/** The kinds of delivery service dispatch may choose; all pricing learns of carriers. */
export const SERVICE_LEVELS = ["BIKE", "CAR", "VAN", "COLD_CHAIN_VAN"] as const;
export type ServiceLevel = (typeof SERVICE_LEVELS)[number];
