export type OfferState = "OPEN" | "ACCEPTED" | "DECLINED" | "EXPIRED" | "WITHDRAWN";

/** One driver's chance at one job, open until it expires, is declined or accepted, or is withdrawn. */
export interface Offer {
  readonly id: string;
  readonly shipmentId: string;
  readonly driverId: string;
  readonly state: OfferState;
  readonly expiresAt: Date;
}

/** Open and not yet expired: the only offer a driver may accept or decline. */
export const isOpenAt = (offer: Offer, now: Date): boolean => offer.state === "OPEN" && offer.expiresAt > now;

/** Open but its time is up: the dispatcher expires it and moves the job on. */
export const hasLapsed = (offer: Offer, now: Date): boolean => offer.state === "OPEN" && offer.expiresAt <= now;
