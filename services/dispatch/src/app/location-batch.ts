import type { LocationReport } from "./driver-api";

interface Waiting {
  readonly report: LocationReport;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * The sandbox fleet's location reports, written together: the reports made in one turn of the
 * event loop (the fleet's drivers tick on a shared grid, see SandboxDriver) become one call, so
 * one transaction and one outbox relay round carry a dozen drivers' fixes instead of a dozen of
 * each. Each caller still learns whether its report was written.
 */
export class LocationBatch {
  #waiting: Waiting[] = [];
  #scheduled = false;

  constructor(private readonly write: (reports: readonly LocationReport[]) => Promise<void>) {}

  report(report: LocationReport): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ report, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      // After the timers due now: every driver ticking on this grid point has reported by then.
      setImmediate(() => void this.#flush());
    });
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const batch = this.#waiting;
    this.#waiting = [];
    try {
      await this.write(batch.map((waiting) => waiting.report));
      for (const waiting of batch) waiting.resolve();
    } catch (err) {
      for (const waiting of batch) waiting.reject(err);
    }
  }
}
