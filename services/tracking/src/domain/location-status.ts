import { hasDriver, isTerminal, type ShipmentState } from "./lifecycle";

export const LOCATION_STATUSES = [
  "NOT_ASSIGNED",
  "WAITING_FOR_DRIVER_ACCEPTANCE",
  "LOCATION_UNAVAILABLE",
  "AVAILABLE",
  "STALE",
  "TERMINAL_NO_LIVE_LOCATION",
] as const;
export type LocationStatus = (typeof LOCATION_STATUSES)[number];

/** A fix is live for 120 s (decisions.md section 9); at 120 s exactly it is stale. */
export const STALE_AFTER_SECONDS = 120;

/** Whole seconds since the fix, never negative (a device clock slightly ahead reads as 0). */
export function ageSeconds(recordedAt: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - recordedAt.getTime()) / 1000));
}

/**
 * decisions.md section 9: NOT_ASSIGNED before any offer, WAITING_FOR_DRIVER_ACCEPTANCE while
 * OFFERED, then LOCATION_UNAVAILABLE / AVAILABLE / STALE by the age of the driver's last fix,
 * TERMINAL_NO_LIVE_LOCATION once delivered, failed or cancelled.
 */
export function locationStatusOf(state: ShipmentState, fixRecordedAt: Date | null, now: Date): LocationStatus {
  if (isTerminal(state)) return "TERMINAL_NO_LIVE_LOCATION";
  if (state === "OFFERED") return "WAITING_FOR_DRIVER_ACCEPTANCE";
  if (!hasDriver(state)) return "NOT_ASSIGNED";
  if (fixRecordedAt === null) return "LOCATION_UNAVAILABLE";
  return ageSeconds(fixRecordedAt, now) < STALE_AFTER_SECONDS ? "AVAILABLE" : "STALE";
}

/**
 * decisions.md section 9: 5 s while OUT_FOR_DELIVERY with a live fix, 15 s while assigned or
 * picked up, 30 s while waiting for a driver (approved, offered or unresolved), 60 s otherwise
 * (awaiting approval, terminal).
 */
export function refreshSecondsOf(state: ShipmentState, status: LocationStatus): number {
  if (state === "OUT_FOR_DELIVERY" && status === "AVAILABLE") return 5;
  if (hasDriver(state)) return 15;
  if (state === "READY_FOR_DISPATCH" || state === "OFFERED" || state === "DISPATCH_UNRESOLVED") return 30;
  return 60;
}
