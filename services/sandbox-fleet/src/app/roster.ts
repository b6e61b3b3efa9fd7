import { indexInName, pairKey, type ServicePair } from "../domain/service-pair";
import type { OwnDriverState } from "../domain/staffing";
import type { FleetDriver } from "./fleet-driver";
import type { FleetDriverAccount } from "./ports";

/** A registered fleet driver not driving now; `account` when this process already holds its secret. */
export interface KnownDriver {
  readonly driverId: string;
  readonly name: string;
  readonly pair: ServicePair;
  /** On shift in dispatch (left so by a previous process): resumed at start. */
  readonly onShift: boolean;
  readonly account?: FleetDriverAccount;
}

/** Who the fleet's drivers are, per pair: those driving, and those registered and idle off shift. */
export class Roster {
  readonly #pairs = new Map<string, ServicePair>();
  readonly #spare = new Map<string, KnownDriver[]>();
  readonly #taken = new Map<string, Set<number>>();
  readonly #driving = new Map<string, FleetDriver>();

  /** The pairs staffed and the drivers dispatch lists as the fleet's; names of another scheme or pair are left alone. */
  know(pairs: readonly ServicePair[], listed: readonly Omit<KnownDriver, "account">[]): void {
    for (const pair of pairs) this.#pairs.set(pairKey(pair), pair);
    for (const driver of listed) {
      const index = this.#pairs.has(pairKey(driver.pair)) ? indexInName(driver.pair, driver.name) : undefined;
      if (index === undefined) continue;
      this.#takenOf(driver.pair).add(index);
      this.#spareOf(driver.pair).push(driver);
    }
    for (const spare of this.#spare.values()) spare.sort((a, b) => (indexInName(a.pair, a.name) ?? 0) - (indexInName(b.pair, b.name) ?? 0));
  }

  pairs(): ServicePair[] {
    return [...this.#pairs.values()];
  }

  /** The spare drivers a previous process left on shift: taken out of the spares. */
  resumable(pair: ServicePair): KnownDriver[] {
    const spare = this.#spareOf(pair);
    const resumed = spare.filter((driver) => driver.onShift);
    this.#spare.set(pairKey(pair), spare.filter((driver) => !driver.onShift));
    return resumed;
  }

  /** Up to `count` spare drivers, lowest names first: taken out of the spares. */
  spare(pair: ServicePair, count: number): KnownDriver[] {
    return this.#spareOf(pair).splice(0, Math.max(0, count));
  }

  /** The `count` lowest indices no driver of the pair has: for new drivers, reserved now. */
  nextNames(pair: ServicePair, count: number): number[] {
    const taken = this.#takenOf(pair);
    const indices: number[] = [];
    for (let index = 1; indices.length < count; index++) if (!taken.has(index)) indices.push(index);
    for (const index of indices) taken.add(index);
    return indices;
  }

  enlisted(driver: FleetDriver): void {
    this.#driving.set(driver.driverId, driver);
  }

  /** A driver that stopped driving (off shift, or failed to come on) becomes a spare again, its secret kept. */
  returned(driver: KnownDriver): void {
    this.#driving.delete(driver.driverId);
    this.#spareOf(driver.pair).unshift(driver);
  }

  driver(driverId: string): FleetDriver | undefined {
    return this.#driving.get(driverId);
  }

  onShift(): FleetDriver[] {
    return [...this.#driving.values()].filter((driver) => driver.onShift);
  }

  states(pair: ServicePair): OwnDriverState[] {
    const key = pairKey(pair);
    return [...this.#driving.values()]
      .filter((driver) => pairKey(driver.account.pair) === key)
      .map((driver) => ({ driverId: driver.driverId, onShift: driver.onShift, busy: driver.busy, idleSinceMs: driver.idleSinceMs, reserve: driver.reserve }));
  }

  #spareOf(pair: ServicePair): KnownDriver[] {
    const key = pairKey(pair);
    if (!this.#spare.has(key)) this.#spare.set(key, []);
    return this.#spare.get(key)!;
  }

  #takenOf(pair: ServicePair): Set<number> {
    const key = pairKey(pair);
    if (!this.#taken.has(key)) this.#taken.set(key, new Set());
    return this.#taken.get(key)!;
  }
}
