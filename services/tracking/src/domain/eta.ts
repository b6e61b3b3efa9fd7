import { haversineMetres, type Coordinate } from "@tawsil/domain";
import { hasDriver } from "./lifecycle";
import type { ShipmentState } from "./lifecycle";

/** Arrival estimates; each is null when there is no basis for it (never invented). */
export interface Estimates {
  readonly pickupAt: Date | null;
  readonly deliveryAt: Date | null;
}

export const NO_ESTIMATES: Estimates = { pickupAt: null, deliveryAt: null };

/** The nearest whole minute (half a minute rounds up): the resolution customers see. */
export function toWholeMinute(at: Date): Date {
  return new Date(Math.round(at.getTime() / 60_000) * 60_000);
}

/**
 * The road model pricing uses without a routing engine (services/pricing domain/route-distance.ts):
 * great-circle distance times the city's circuity factor. Kept in step with pricing's defaults.
 */
const CIRCUITY: Readonly<Record<string, number>> = { RUH: 1.3, JED: 1.35, DMM: 1.3, MKK: 1.45, MED: 1.3 };

/** Average urban driving speed per city, km/h, for a courier in daytime traffic. */
const SPEED_KMH: Readonly<Record<string, number>> = { RUH: 30, JED: 28, DMM: 35, MKK: 22, MED: 32 };

/** Whole seconds to drive from a to b in the city, or null for a city without a profile. */
export function driveSeconds(cityCode: string, a: Coordinate, b: Coordinate): number | null {
  const circuity = CIRCUITY[cityCode];
  const speed = SPEED_KMH[cityCode];
  if (circuity === undefined || speed === undefined) return null;
  return Math.round((haversineMetres(a, b) * circuity) / ((speed * 1000) / 3600));
}

export interface EtaInput {
  readonly state: ShipmentState;
  readonly cityCode: string;
  readonly pickup: Coordinate;
  readonly destination: Coordinate;
  /** The driver's last fix while it is live (not stale); null otherwise. */
  readonly liveFix: { readonly position: Coordinate; readonly recordedAt: Date } | null;
}

/**
 * From the driver's last live fix: an assigned driver goes to the pickup, then on to the
 * destination; a driver carrying the parcel goes to the destination. Without a live fix, a known
 * city or a driver, nothing is estimated.
 */
export function estimate(input: EtaInput): Estimates {
  if (!hasDriver(input.state) || input.liveFix === null) return NO_ESTIMATES;
  const at = (from: Date, seconds: number) => new Date(from.getTime() + seconds * 1000);
  const { position, recordedAt } = input.liveFix;
  if (input.state === "ACCEPTED") {
    const toPickup = driveSeconds(input.cityCode, position, input.pickup);
    const toDestination = driveSeconds(input.cityCode, input.pickup, input.destination);
    if (toPickup === null || toDestination === null) return NO_ESTIMATES;
    return { pickupAt: at(recordedAt, toPickup), deliveryAt: at(recordedAt, toPickup + toDestination) };
  }
  const toDestination = driveSeconds(input.cityCode, position, input.destination);
  return toDestination === null ? NO_ESTIMATES : { pickupAt: null, deliveryAt: at(recordedAt, toDestination) };
}
