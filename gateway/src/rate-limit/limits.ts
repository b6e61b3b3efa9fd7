import { AuthLockout } from "./lockout";
import type { RateLimitPolicy } from "./rate-limited";
import { SlidingWindow } from "./sliding-window";
import { TokenBuckets } from "./token-bucket";

/**
 * One limit of decisions.md section 14, named as its RateLimit-Policy names it (and as its keys
 * are named in the shared store). Each carries this replica's own count of it: the whole state
 * when no shared store is set, and the fallback when the store does not answer in time.
 */
export type Limit = TokenBucketLimit | SlidingWindowLimit | LockoutLimit;

export interface TokenBucketLimit {
  readonly kind: "bucket";
  readonly name: string;
  readonly capacity: number;
  readonly perSecond: number;
  readonly memory: TokenBuckets;
}

export interface SlidingWindowLimit {
  readonly kind: "window";
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly memory: SlidingWindow;
}

/** In a chain, a lockout takes nothing: it refuses while its key is locked (failures are recorded apart). */
export interface LockoutLimit {
  readonly kind: "lockout";
  readonly name: string;
  readonly maxFailures: number;
  readonly windowSeconds: number;
  readonly lockSeconds: number;
  readonly memory: AuthLockout;
}

export function tokenBucket(name: string, capacity: number, perSecond: number): TokenBucketLimit {
  return { kind: "bucket", name, capacity, perSecond, memory: new TokenBuckets(capacity, perSecond) };
}

export function slidingWindow(name: string, limit: number, windowSeconds: number): SlidingWindowLimit {
  return { kind: "window", name, limit, windowSeconds, memory: new SlidingWindow(limit, windowSeconds) };
}

export function lockout(name: string, maxFailures: number, windowSeconds: number, lockSeconds: number): LockoutLimit {
  return { kind: "lockout", name, maxFailures, windowSeconds, lockSeconds, memory: new AuthLockout(maxFailures, windowSeconds, lockSeconds) };
}

/** The RateLimit-Policy a refusal by `limit` names (a bucket's window: the time its burst takes to refill). */
export function policyOf(limit: Limit): RateLimitPolicy {
  switch (limit.kind) {
    case "bucket":
      return { name: limit.name, quota: limit.capacity, windowSeconds: Math.max(1, Math.round(limit.capacity / limit.perSecond)) };
    case "window":
      return { name: limit.name, quota: limit.limit, windowSeconds: limit.windowSeconds };
    case "lockout":
      return { name: limit.name, quota: limit.maxFailures, windowSeconds: limit.windowSeconds };
  }
}
