import type { Logger } from "@tawsil/logging";
import type { Catalogue } from "../domain/catalogue";
import { cityStaffing, staffingKey, type CityStaffing } from "../domain/city-staffing";

export interface StaffingPublisherOptions {
  readonly catalogue: { current(): Catalogue };
  readonly activeDrivers: { cities(): Iterable<string>; has(cityCode: string, carrierServiceId: string): boolean };
  /** Records the cities' new states in the outbox, in one transaction. */
  readonly record: (changed: readonly CityStaffing[]) => Promise<void>;
  readonly logger: Logger;
}

/**
 * Publishes what each city's drivers on shift can carry (dispatch.city-staffing.v1), so pricing
 * decides eligibility from memory instead of asking dispatch on every quote. Called after the
 * active driver index or the catalogue reloads; it records only the cities whose state changed
 * since this replica last recorded them (all of them after a start, so the topic always holds
 * the current state, even for changes made while no replica ran). Every replica publishes what it
 * sees: each reloads on every shift change, so the last state each records is the newest, and a
 * duplicate on a compacted topic keyed by city costs nothing. Runs never overlap: a change during
 * a run triggers one more run after it.
 */
export class StaffingPublisher {
  readonly #recorded = new Map<string, string>();
  #running: Promise<void> | undefined;
  #again = false;
  #settled = false;

  constructor(private readonly opts: StaffingPublisherOptions) {}

  /** Records what changed now, or after the run in flight; rejects when the outbox write fails. */
  publishChanges(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#settled = false;
    this.#running = this.#runUntilSettled().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** For a reload: a failure is logged and retried on the next reload (a shift change or the catalogue's period). */
  publishInBackground(): void {
    this.publishChanges().catch((err: unknown) => this.opts.logger.error({ err }, "city staffing could not be recorded; retried on the next reload"));
  }

  /** Whether what this replica last saw is recorded, with nothing pending: for readiness. */
  upToDate(): boolean {
    return this.#settled && !this.#running;
  }

  async #runUntilSettled(): Promise<void> {
    do {
      this.#again = false;
      const states = cityStaffing(this.opts.catalogue.current(), this.opts.activeDrivers.cities(), (city, service) => this.opts.activeDrivers.has(city, service));
      const changed = states.filter((state) => this.#recorded.get(state.cityCode) !== staffingKey(state));
      if (changed.length > 0) {
        await this.opts.record(changed);
        for (const state of changed) this.#recorded.set(state.cityCode, staffingKey(state));
        this.opts.logger.info({ cities: changed.map((state) => ({ city: state.cityCode, services: state.services.length })) }, "city staffing recorded");
      }
    } while (this.#again);
    this.#settled = true;
  }
}
