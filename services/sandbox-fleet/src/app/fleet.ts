import type { Logger } from "@tawsil/logging";
import { CITY_CENTRES, startPosition } from "../domain/geo";
import { driverName, pairKey, type ServicePair } from "../domain/service-pair";
import { hungry, staffingChange, type StaffingRules } from "../domain/staffing";
import { FleetDriver, type FleetDriverSettings } from "./fleet-driver";
import type { Clock, DriverApp, FleetAdmin, FleetDriverAccount, FleetMetrics, PairDemandReport } from "./ports";
import { Roster, type KnownDriver } from "./roster";

/** Dispatch is asked for the demand at most this often. */
const DEMAND_POLL_MS = 1_000;
/**
 * Drivers brought on shift at once, across every pair (each is a registration or a new secret, a
 * secret hashed, a token, a shift). A new secret is answered only once its revocation's second has
 * passed (the merchant service), so one pair after another cost a second each: 27 s of a warm start.
 */
const CONCURRENT_ONBOARDING = 20;

export interface FleetOptions {
  /** The cities staffed (each with a centre in CITY_CENTRES). */
  readonly cities: ReadonlySet<string>;
  readonly admin: FleetAdmin;
  readonly appFor: (account: FleetDriverAccount) => DriverApp;
  readonly rules: StaffingRules;
  readonly driving: Omit<FleetDriverSettings, "busyChanged" | "finished" | "clock" | "logger" | "deliveryPin" | "reserve" | "shiftEnded">;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: FleetMetrics;
}

/**
 * The sandbox's fleet: for each carrier service in each city with a centre, a baseline of drivers
 * always on shift, more while the pair's drivers are all busy and dispatch counts jobs waiting
 * (asked at most once a second, and only then), back to the baseline as extra drivers stay idle.
 * At the cap, a reserve driver per new shipment left waiting, each off shift after that delivery.
 * Drivers are the fleet's own registered drivers, found again by name after a restart.
 */
export class Fleet {
  readonly #roster = new Roster();
  /**
   * Each driver's app, kept when it goes off shift: its token (an hour's) is reused when it comes
   * back, as the gateway limits token requests per address and the whole fleet shares one.
   */
  readonly #apps = new Map<string, DriverApp>();
  #queue: Promise<void> = Promise.resolve();
  #lastPollMs = 0;
  #pollTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #closed = false;
  onDuty = false;

  constructor(private readonly o: FleetOptions) {}

  /** Finds the pairs of its cities and the fleet's drivers, resumes those on shift and brings each pair to its baseline. */
  async start(): Promise<void> {
    const pairs = (await this.o.admin.demand(0)).filter((pair) => CITY_CENTRES[pair.cityCode] && this.o.cities.has(pair.cityCode));
    this.#roster.know(pairs, await this.o.admin.listFleetDrivers());
    await this.#serial(() => this.#enlistAll(pairs.flatMap((pair) => this.#enlistments(pair, this.#roster.resumable(pair)))));
    await this.#rebalance();
    this.onDuty = true;
    const period = Math.max(1_000, Math.min(this.o.rules.idleOffShiftMs / 4, 15_000));
    this.#idleTimer = setInterval(() => void this.#rebalance(), period).unref();
    this.o.logger.info({ pairs: pairs.length, drivers: this.#roster.onShift().length }, "sandbox fleet on duty");
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#idleTimer);
    clearTimeout(this.#pollTimer);
    await this.#queue;
    // Left on shift: a restarted fleet resumes them (and their jobs) at once.
    await Promise.all(this.#roster.onShift().map((driver) => driver.stop(false)));
  }

  /** Baseline kept, idle extras off shift: local knowledge only, dispatch is not asked. */
  #rebalance(): Promise<void> {
    return this.#serial(async () => {
      const changes = this.#roster.pairs().map((pair) => ({ pair, change: staffingChange(this.#roster.states(pair), undefined, this.o.rules, this.o.clock.now()) }));
      await this.#enlistAll(changes.flatMap(({ pair, change }) => this.#enlistments(pair, change.bringOn)));
      for (const { pair, change } of changes) await this.#takeOff(pair, change.takeOff);
    });
  }

  #busyChanged(pair: ServicePair): void {
    this.o.metrics.driversBusy(this.#roster.onShift().filter((driver) => driver.busy).length);
    if (this.#hungry(pair)) this.#schedulePoll();
  }

  /** All the pair's drivers busy, and room for more (below the cap, or reserve left): only then is dispatch asked. */
  #hungry(pair: ServicePair): boolean {
    return hungry(this.#roster.states(pair), this.o.rules);
  }

  #schedulePoll(): void {
    if (this.#pollTimer || this.#closed) return;
    const wait = Math.max(0, this.#lastPollMs + DEMAND_POLL_MS - this.o.clock.now());
    this.#pollTimer = setTimeout(() => void this.#serial(() => this.#pollDemand()), wait);
  }

  async #pollDemand(): Promise<void> {
    this.#pollTimer = undefined;
    const hungry = this.#roster.pairs().filter((pair) => this.#hungry(pair));
    if (hungry.length === 0) return;
    this.#lastPollMs = this.o.clock.now();
    this.o.metrics.demandPolled();
    let demand: PairDemandReport[];
    try {
      demand = await this.o.admin.demand(this.o.rules.recentMs);
    } catch (err) {
      this.o.logger.warn({ err }, "sandbox fleet: demand not known; asking again");
      this.#schedulePoll();
      return;
    }
    // Every hungry pair's drivers at once, as at start: pair after pair, each waited out a second.
    const work = hungry.flatMap((pair) => {
      const change = staffingChange(this.#roster.states(pair), demand.find((d) => pairKey(d) === pairKey(pair)), this.o.rules, this.o.clock.now());
      if (change.bringOnReserve > 0) {
        this.o.logger.info({ pair: pairKey(pair), reserve: change.bringOnReserve }, "sandbox fleet: reserve drivers called for new shipments waiting behind the backlog");
        this.o.metrics.reserveCalled(change.bringOnReserve);
      }
      return [...this.#enlistments(pair, change.bringOn), ...this.#enlistments(pair, change.bringOnReserve, true)];
    });
    await this.#enlistAll(work);
    // Still all busy: the backlog may still grow, so ask again (no sooner than a second).
    if (this.#roster.pairs().some((pair) => this.#hungry(pair))) this.#schedulePoll();
  }

  /** What brings `count` more (or these known) drivers of the pair on shift; the roster's choices are made now. */
  #enlistments(pair: ServicePair, count: number | readonly KnownDriver[], reserve = false): (() => Promise<void>)[] {
    const known = typeof count === "number" ? this.#roster.spare(pair, count) : count;
    const extra = typeof count === "number" ? count - known.length : 0;
    const names = this.#roster.nextNames(pair, extra).map((index) => driverName(pair, index));
    return [...known.map((driver) => () => this.#enlist(driver, reserve)), ...names.map((name) => () => this.#enlist({ name, pair }, reserve))];
  }

  async #enlistAll(work: readonly (() => Promise<void>)[]): Promise<void> {
    for (let at = 0; at < work.length; at += CONCURRENT_ONBOARDING) await Promise.all(work.slice(at, at + CONCURRENT_ONBOARDING).map((job) => job()));
    if (work.length > 0) this.o.metrics.driversOnShift(this.#roster.onShift().length);
  }

  /** One driver on shift: an account held, reused (a new secret) or onboarded; a failure leaves it for the next rebalance. */
  async #enlist(known: KnownDriver | { name: string; pair: ServicePair }, reserve: boolean): Promise<void> {
    if (this.#closed) return;
    let account: FleetDriverAccount | undefined;
    let driver: FleetDriver | undefined;
    try {
      account = "driverId" in known ? (known.account ?? (await this.o.admin.rotate(known))) : await this.o.admin.onboard(known.name, known.pair);
      driver = new FleetDriver(account, startPosition(CITY_CENTRES[known.pair.cityCode]!, seedOf(account.name)), this.#appOf(account), {
        ...this.o.driving,
        clock: this.o.clock,
        logger: this.o.logger,
        deliveryPin: (shipmentId) => this.o.admin.deliveryPin(shipmentId),
        busyChanged: () => this.#busyChanged(known.pair),
        finished: (outcome) => this.o.metrics.deliveryFinished(outcome),
        reserve,
        shiftEnded: () => this.#shiftEnded(driver!),
      });
      this.#roster.enlisted(driver);
      await driver.start();
    } catch (err) {
      const driverId = account?.driverId ?? ("driverId" in known ? known.driverId : undefined);
      if (driverId) this.#roster.returned({ driverId, name: known.name, pair: known.pair, onShift: driver?.onShift ?? false, ...(account ? { account } : {}) });
      this.o.logger.warn({ err, driver: known.name }, "sandbox fleet: a driver could not come on shift; trying again later");
    }
  }

  /** A reserve driver went off shift after its delivery: a spare again, its secret and token kept. */
  #shiftEnded(driver: FleetDriver): void {
    this.#roster.returned({ driverId: driver.driverId, name: driver.account.name, pair: driver.account.pair, onShift: false, account: driver.account });
    this.o.metrics.driversOnShift(this.#roster.onShift().length);
  }

  async #takeOff(pair: ServicePair, driverIds: readonly string[]): Promise<void> {
    for (const driverId of driverIds) {
      const driver = this.#roster.driver(driverId);
      if (!driver || driver.busy) continue;
      await driver.stop(true).catch((err: unknown) => this.o.logger.warn({ err, driverId }, "sandbox fleet: a driver could not go off shift"));
      this.#roster.returned({ driverId, name: driver.account.name, pair, onShift: driver.onShift, account: driver.account });
    }
    if (driverIds.length > 0) {
      this.o.logger.info({ pair: pairKey(pair), offShift: driverIds.length }, "sandbox fleet: idle extra drivers off shift");
      this.o.metrics.driversOnShift(this.#roster.onShift().length);
    }
  }

  #appOf(account: FleetDriverAccount): DriverApp {
    const app = this.#apps.get(account.driverId) ?? this.o.appFor(account);
    this.#apps.set(account.driverId, app);
    return app;
  }

  /** Staffing actions one at a time: two never count the same pair's drivers at once. */
  #serial(action: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(action, action);
    this.#queue = next.catch((err: unknown) => this.o.logger.error({ err }, "sandbox fleet: staffing failed"));
    return this.#queue;
  }
}

/** A stable number from a driver's name: the same start position on every start. */
function seedOf(name: string): number {
  let hash = 0;
  for (const char of name) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}
