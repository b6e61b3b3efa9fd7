/** One of the fleet's own drivers of a pair, as the fleet knows it (they are its own, so it knows exactly). */
export interface OwnDriverState {
  readonly driverId: string;
  readonly onShift: boolean;
  /** Carrying a shipment, or accepting an offer. */
  readonly busy: boolean;
  /** When it last became free (or came on shift), epoch ms. */
  readonly idleSinceMs: number;
}

/** Dispatch's view of a pair (GetFleetDemand). */
export interface PairDemand {
  readonly free: number;
  readonly waiting: number;
}

export interface StaffingRules {
  /** Always on shift (FLEET_DRIVERS_PER_SERVICE). */
  readonly baseline: number;
  /** At most on shift (FLEET_MAX_DRIVERS_PER_SERVICE); never below the baseline. */
  readonly cap: number;
  /** An extra driver idle this long goes off shift. */
  readonly idleOffShiftMs: number;
}

export interface StaffingChange {
  readonly bringOn: number;
  /** Longest idle first. */
  readonly takeOff: readonly string[];
}

/**
 * Whether it is worth asking dispatch for the pair's demand: every own driver on shift is busy. A
 * pair with a free driver needs none more (a waiting job is offered to it), so an idle fleet asks
 * nothing at all.
 */
export function saturated(drivers: readonly OwnDriverState[]): boolean {
  const onShift = drivers.filter((driver) => driver.onShift);
  return onShift.length > 0 && onShift.every((driver) => driver.busy);
}

/**
 * How a pair's staffing changes: up to the baseline always; above it, while the pair is saturated
 * and dispatch counts jobs waiting beyond its free drivers, one more driver per such job, up to the
 * cap; and back toward the baseline, by the extra drivers idle for longer than the rule's period.
 */
export function staffingChange(drivers: readonly OwnDriverState[], demand: PairDemand | undefined, rules: StaffingRules, nowMs: number): StaffingChange {
  const onShift = drivers.filter((driver) => driver.onShift);
  const cap = Math.max(rules.cap, rules.baseline);
  const wanted = demand && saturated(drivers) ? onShift.length + Math.max(0, demand.waiting - demand.free) : 0;
  const bringOn = Math.max(0, Math.min(cap, Math.max(rules.baseline, wanted)) - onShift.length);
  if (bringOn > 0) return { bringOn, takeOff: [] };
  const idle = onShift.filter((driver) => !driver.busy && nowMs - driver.idleSinceMs >= rules.idleOffShiftMs).sort((a, b) => a.idleSinceMs - b.idleSinceMs);
  return { bringOn: 0, takeOff: idle.slice(0, Math.max(0, onShift.length - rules.baseline)).map((driver) => driver.driverId) };
}
