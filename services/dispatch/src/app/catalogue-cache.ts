import type { Logger } from "@tawsil/logging";
import type { Catalogue } from "../domain/catalogue";
import type { LoadedCatalogue } from "./ports";

export interface CatalogueCacheOptions {
  readonly load: () => Promise<LoadedCatalogue>;
  readonly refreshMs: number;
  readonly logger: Logger;
  /** Called after each successful load (the city staffing publisher reads the new catalogue). */
  readonly onLoaded?: () => void;
}

/**
 * The carrier catalogue held in memory, so answering eligibility costs no database round trip.
 * It changes rarely (operators edit rows), so a replica reloads it every `refreshMs`; a change
 * reaches every replica within that time. A failed refresh keeps the last good catalogue and
 * tries again next period: serving a catalogue a minute old beats failing every request while
 * the database is away. Loads never overlap (the next one is scheduled after the last ends).
 */
export class CatalogueCache {
  readonly name = "catalogue-cache";
  #catalogue: Catalogue | undefined;
  #loadedAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(private readonly opts: CatalogueCacheOptions) {}

  /** Loads the catalogue once (failing when it cannot: a replica without one must not start) and starts refreshing. */
  async start(): Promise<void> {
    await this.refresh();
    this.#schedule();
  }

  /** The catalogue last loaded. */
  current(): Catalogue {
    if (!this.#catalogue) throw new Error("the carrier catalogue has not been loaded; call start() first");
    return this.#catalogue;
  }

  /** Milliseconds since the last successful load. */
  ageMs(now: number = Date.now()): number {
    return now - this.#loadedAt;
  }

  /** Reloads now; rejects (keeping the previous catalogue) when the load fails. */
  async refresh(): Promise<void> {
    const { catalogue, unknownRequirements } = await this.opts.load();
    const first = this.#catalogue === undefined;
    this.#catalogue = catalogue;
    this.#loadedAt = Date.now();
    // Counts only: carrier identity stays out of the logs.
    const activeCarriers = catalogue.carriers.filter((carrier) => carrier.active);
    const summary = { carriers: activeCarriers.length, services: activeCarriers.flatMap((carrier) => carrier.services.filter((s) => s.active)).length };
    if (unknownRequirements.length > 0) this.opts.logger.warn({ unknownRequirements }, "carrier catalogue names requirements outside the catalogue; ignored");
    if (summary.services === 0) this.opts.logger.warn(summary, "carrier catalogue has no active service: nothing is eligible");
    if (first) this.opts.logger.info({ ...summary, refreshMs: this.opts.refreshMs }, "carrier catalogue loaded");
    else this.opts.logger.debug(summary, "carrier catalogue refreshed");
    this.opts.onLoaded?.();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.refresh()
        .catch((err: unknown) => this.opts.logger.error({ err, ageMs: this.ageMs() }, "carrier catalogue refresh failed; serving the last one loaded"))
        .finally(() => this.#schedule());
    }, this.opts.refreshMs);
    // Refreshing alone must not keep a process alive.
    this.#timer.unref();
  }
}
