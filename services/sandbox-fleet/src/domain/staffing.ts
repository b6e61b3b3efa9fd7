/** One of the fleet's own drivers of a pair, as the fleet knows it (they are its own, so it knows exactly). */
export interface OwnDriverState {
  readonly driverId: string;
  readonly onShift: boolean;
  /** Carrying a shipment, or accepting an offer. */
  readonly busy: boolean;
  /** When it last became free (or came on shift), epoch ms. */
  readonly idleSinceMs: number;
  /** Came on shift beyond the cap for a new shipment, and ends its shift with that delivery. */
  readonly reserve: boolean;
}

/** Dispatch's view of a pair (GetFleetDemand). */
export interface PairDemand {
  readonly free: number;
  readonly waiting: number;
  /** Those waiting created within StaffingRules.recentMs. */
  readonly waitingRecent: number;
}

export interface StaffingRules {
  /** Always on shift (FLEET_DRIVERS_PER_SERVICE). */
  readonly baseline: number;
  /** At most on shift for the backlog (FLEET_MAX_DRIVERS_PER_SERVICE); never below the baseline. */
  readonly cap: number;
  /** Beyond the cap, at most this many at once for recent shipments only (FLEET_RESERVE_DRIVERS_PER_SERVICE). */
  readonly reserve: number;
  /** How new a waiting shipment is for the reserve to serve it (FLEET_RECENT_DEMAND_MS). */
  readonly recentMs: number;
  /** An extra driver idle this long goes off shift. */
  readonly idleOffShiftMs: number;
}

export interface StaffingChange {
  readonly bringOn: number;
  /** Reserve drivers to bring on: each takes one new shipment and then ends its shift. */
  readonly bringOnReserve: number;
  /** Longest idle first. */
  readonly takeOff: readonly string[];
}

const capOf = (rules: StaffingRules): number => Math.max(rules.cap, rules.baseline);

/**
 * Whether it is worth asking dispatch for the pair's demand: every own driver on shift (the reserve
 * aside) is busy. A pair with a free driver needs none more (a waiting job is offered to it), so an
 * idle fleet asks nothing at all.
 */
export function saturated(drivers: readonly OwnDriverState[]): boolean {
  const onShift = drivers.filter((driver) => driver.onShift && !driver.reserve);
  return onShift.length > 0 && onShift.every((driver) => driver.busy);
}

/** Saturated, with room to grow: below the cap, or with reserve drivers still to call. */
export function hungry(drivers: readonly OwnDriverState[], rules: StaffingRules): boolean {
  if (!saturated(drivers)) return false;
  const regular = drivers.filter((driver) => driver.onShift && !driver.reserve).length;
  const reserve = drivers.filter((driver) => driver.onShift && driver.reserve).length;
  return regular < capOf(rules) || reserve < rules.reserve;
}

/**
 * How a pair's staffing changes: up to the baseline always; above it, while the pair is saturated
 * and dispatch counts jobs waiting beyond its free drivers, one more driver per such job, up to the
 * cap. At the cap, the recent jobs still waiting get reserve drivers (dispatch gives a driver who
 * comes on shift the sandbox's newest job), so the backlog never starves a new shipment. And back
 * toward the baseline, by the extra drivers idle for longer than the rule's period.
 */
export function staffingChange(drivers: readonly OwnDriverState[], demand: PairDemand | undefined, rules: StaffingRules, nowMs: number): StaffingChange {
  const onShift = drivers.filter((driver) => driver.onShift);
  const regular = onShift.filter((driver) => !driver.reserve).length;
  const reserve = onShift.length - regular;
  const cap = capOf(rules);
  const busy = demand !== undefined && saturated(drivers);
  const wanted = busy ? regular + Math.max(0, demand.waiting - demand.free) : 0;
  const bringOn = Math.max(0, Math.min(cap, Math.max(rules.baseline, wanted)) - regular);
  // Recent jobs the free drivers and those now coming cannot take: the reserve's, once at the cap.
  const recentLeft = busy && regular + bringOn >= cap ? demand.waitingRecent - demand.free - bringOn : 0;
  const bringOnReserve = Math.max(0, Math.min(rules.reserve - reserve, recentLeft));
  if (bringOn + bringOnReserve > 0) return { bringOn, bringOnReserve, takeOff: [] };
  const idle = onShift.filter((driver) => !driver.busy && nowMs - driver.idleSinceMs >= rules.idleOffShiftMs).sort((a, b) => a.idleSinceMs - b.idleSinceMs);
  return { bringOn: 0, bringOnReserve: 0, takeOff: idle.slice(0, Math.max(0, onShift.length - rules.baseline)).map((driver) => driver.driverId) };
}
