import type { Logger } from "@tawsil/logging";

/** A dependency the process needs to serve traffic (its database, the broker, a peer). */
export interface ReadinessCheck {
  readonly name: string;
  check(signal: AbortSignal): Promise<void>;
}

export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Record<string, "up" | "down">;
}

/**
 * Evaluates every check in parallel, each under a deadline. Results are reused for `cacheMs` so
 * probes, health watchers and the gateway's aggregate do not multiply load on the dependencies.
 * Failure reasons go to the log only: a probe response names dependencies, never their errors.
 */
export class Readiness {
  #draining = false;
  #cached: { at: number; report: Promise<ReadinessReport> } | undefined;

  constructor(
    private readonly checks: readonly ReadinessCheck[],
    private readonly logger: Logger,
    private readonly opts: { timeoutMs?: number; cacheMs?: number } = {},
  ) {}

  /** Once draining, the process reports not ready so load balancers stop sending new work. */
  startDraining(): void {
    this.#draining = true;
    this.#cached = undefined;
  }

  report(): Promise<ReadinessReport> {
    const now = Date.now();
    if (this.#cached && now - this.#cached.at < (this.opts.cacheMs ?? 500)) return this.#cached.report;
    const report = this.#evaluate();
    this.#cached = { at: now, report };
    return report;
  }

  async #evaluate(): Promise<ReadinessReport> {
    const timeoutMs = this.opts.timeoutMs ?? 1000;
    const results = await Promise.all(
      this.checks.map(async ({ name, check }) => {
        try {
          const signal = AbortSignal.timeout(timeoutMs);
          // A check that ignores its signal must still not hold the probe past its deadline.
          await Promise.race([check(signal), rejectOnAbort(signal)]);
          return [name, "up"] as const;
        } catch (err) {
          this.logger.warn({ err, dependency: name }, "readiness check failed");
          return [name, "down"] as const;
        }
      }),
    );
    const checks = Object.fromEntries(results);
    return { ready: !this.#draining && results.every(([, status]) => status === "up"), checks };
  }
}

function rejectOnAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
