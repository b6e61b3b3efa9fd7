import type { Coordinate } from "@tawsil/domain";
import { haversineMetres } from "@tawsil/domain";

/** An available driver as driver choice sees it. */
export interface CandidateDriver {
  readonly id: string;
  readonly serviceId: string;
  readonly position: Coordinate | undefined;
}

/**
 * Internal score of a driver for a pickup: lower is better. Only distance counts for now; a
 * driver without a known position comes last. Scores never leave dispatch.
 */
export function scoreOf(driver: CandidateDriver, pickup: Coordinate): number {
  return driver.position ? haversineMetres(driver.position, pickup) : Number.MAX_SAFE_INTEGER;
}

/** The best candidate among drivers of eligible services, ties broken by id for determinism. */
export function chooseDriver(drivers: readonly CandidateDriver[], eligibleServiceIds: ReadonlySet<string>, pickup: Coordinate): CandidateDriver | undefined {
  return drivers
    .filter((driver) => eligibleServiceIds.has(driver.serviceId))
    .map((driver) => ({ driver, score: scoreOf(driver, pickup) }))
    .sort((a, b) => a.score - b.score || (a.driver.id < b.driver.id ? -1 : 1))[0]?.driver;
}
