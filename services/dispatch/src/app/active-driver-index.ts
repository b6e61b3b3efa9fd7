import type { Logger } from "@tawsil/logging";
import type { ActiveDriverPair } from "./ports";

export interface ActiveDriverIndexOptions {
  readonly load: () => Promise<readonly ActiveDriverPair[]>;
  readonly logger: Logger;
  /** Called after each successful load (the city staffing publisher reads the new index). */
  readonly onLoaded?: () => void;
}

/**
 * Which carrier services have a driver on shift (free or busy) in which city, held in memory so
 * eligibility answers without a database round trip. A driver's shift change commits a
 * notification (wake-ups.ts DRIVERS_CHANNEL) that every replica listens for and answers by
 * reloading; the replica that made the change also reloads before its RPC returns, so its own
 * callers read their write. Reloads never overlap: a change announced during a load triggers one
 * more load after it (that load might have read the database before the change committed).
 * A failed reload keeps the last index and is retried on the next notification or reconnection.
 */
export class ActiveDriverIndex {
  readonly name = "active-driver-index";
  #pairs: ReadonlySet<string> | undefined;
  #cities: ReadonlySet<string> = new Set();
  #loading: Promise<void> | undefined;
  #again = false;

  constructor(private readonly opts: ActiveDriverIndexOptions) {}

  /** Loads once, failing when it cannot: a replica without the index must not answer "nobody is on shift". */
  async start(): Promise<void> {
    await this.refresh();
  }

  /** Whether a driver of the service is on shift in the city. */
  has(cityCode: string, carrierServiceId: string): boolean {
    if (!this.#pairs) throw new Error("the active driver index has not been loaded; call start() first");
    return this.#pairs.has(keyOf(cityCode, carrierServiceId));
  }

  /** The cities with at least one driver on shift. */
  cities(): Iterable<string> {
    return this.#cities;
  }

  /** Reloads now, or after the load in flight (once, however many ask meanwhile); rejects when the load fails. */
  refresh(): Promise<void> {
    if (this.#loading) {
      this.#again = true;
      return this.#loading;
    }
    this.#loading = this.#loadUntilSettled().finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  /** For a notification: a failure is logged, the last index stays in use. */
  refreshInBackground(): void {
    this.refresh().catch((err: unknown) => this.opts.logger.error({ err }, "active driver index reload failed; serving the last one loaded"));
  }

  async #loadUntilSettled(): Promise<void> {
    do {
      this.#again = false;
      const pairs = await this.opts.load();
      this.#pairs = new Set(pairs.map((pair) => keyOf(pair.cityCode, pair.carrierServiceId)));
      this.#cities = new Set(pairs.map((pair) => pair.cityCode));
    } while (this.#again);
    this.opts.logger.debug({ pairs: this.#pairs.size }, "active driver index loaded");
    this.opts.onLoaded?.();
  }
}

const keyOf = (cityCode: string, carrierServiceId: string) => `${cityCode}|${carrierServiceId}`;
