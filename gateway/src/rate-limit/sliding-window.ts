import type { Decision } from "./token-bucket";

/**
 * At most `limit` requests per key in any `windowSeconds`: the exact reading of "20 requests per
 * minute" (a token bucket would let a slow trickle exceed it). Keeps the last `limit` request
 * times per key, in this replica's memory.
 */
export class SlidingWindow {
  readonly #requests = new Map<string, number[]>();

  constructor(
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly maxKeys = 100_000,
  ) {}

  take(key: string, now = Date.now()): Decision {
    const windowMs = this.windowSeconds * 1000;
    let times = this.#requests.get(key);
    if (!times) {
      if (this.#requests.size >= this.maxKeys) {
        const oldest = this.#requests.keys().next().value;
        if (oldest !== undefined) this.#requests.delete(oldest);
      }
      times = [];
      this.#requests.set(key, times);
    }
    while (times.length > 0 && now - times[0]! >= windowMs) times.shift();
    const allowed = times.length < this.limit;
    if (allowed) times.push(now);
    const untilOldestLeaves = times.length > 0 ? Math.ceil((times[0]! + windowMs - now) / 1000) : 0;
    return {
      allowed,
      remaining: this.limit - times.length,
      retryAfterSeconds: allowed ? 0 : Math.max(1, untilOldestLeaves),
      resetSeconds: untilOldestLeaves,
    };
  }
}
