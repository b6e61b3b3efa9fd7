/** Outcome of asking a limiter for one request. */
export interface Decision {
  readonly allowed: boolean;
  /** Requests left right now (after this one, when allowed). */
  readonly remaining: number;
  /** Whole seconds (>= 1) until a refused request would be allowed. */
  readonly retryAfterSeconds: number;
  /** Whole seconds until the bucket is full again. */
  readonly resetSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per key: `capacity` requests at once, refilled at `perSecond`. State lives in
 * this replica's memory (architecture.md allows it): with N replicas a client may reach N times the
 * rate, which the deployment accounts for when it sets the limits.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    readonly capacity: number,
    readonly perSecond: number,
    private readonly maxKeys = 100_000,
  ) {}

  take(key: string, now = Date.now()): Decision {
    let bucket = this.#buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(this.capacity, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
      bucket.at = now;
    } else {
      this.#evictIfFull();
      bucket = { tokens: this.capacity, at: now };
      this.#buckets.set(key, bucket);
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond)),
      resetSeconds: Math.ceil((this.capacity - bucket.tokens) / this.perSecond),
    };
  }

  #evictIfFull(): void {
    if (this.#buckets.size < this.maxKeys) return;
    // Oldest first (Map keeps insertion order); a forgotten bucket simply starts full again.
    const oldest = this.#buckets.keys().next().value;
    if (oldest !== undefined) this.#buckets.delete(oldest);
  }
}
