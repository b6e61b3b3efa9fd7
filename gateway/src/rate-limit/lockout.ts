/**
 * Failed client authentications per client id: `maxFailures` within `windowSeconds` lock the id
 * for `lockSeconds`, whatever secret comes next (decisions.md section 14). Per replica, in memory.
 */
export class AuthLockout {
  readonly #failures = new Map<string, number[]>();
  readonly #lockedUntil = new Map<string, number>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowSeconds: number,
    private readonly lockSeconds: number,
    private readonly maxKeys = 100_000,
  ) {}

  /** Seconds the id stays locked (>= 1), or 0 when it is not locked. */
  lockedFor(key: string, now = Date.now()): number {
    const until = this.#lockedUntil.get(key);
    if (until === undefined) return 0;
    if (until <= now) {
      this.#lockedUntil.delete(key);
      return 0;
    }
    return Math.max(1, Math.ceil((until - now) / 1000));
  }

  recordFailure(key: string, now = Date.now()): void {
    if (this.#failures.size >= this.maxKeys && !this.#failures.has(key)) {
      const oldest = this.#failures.keys().next().value;
      if (oldest !== undefined) this.#failures.delete(oldest);
    }
    const recent = (this.#failures.get(key) ?? []).filter((t) => now - t < this.windowSeconds * 1000);
    recent.push(now);
    if (recent.length >= this.maxFailures) {
      this.#lockedUntil.set(key, now + this.lockSeconds * 1000);
      this.#failures.delete(key);
      return;
    }
    this.#failures.set(key, recent);
  }

  recordSuccess(key: string): void {
    this.#failures.delete(key);
  }
}
