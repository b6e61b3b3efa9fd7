/**
 * Retries with exponential backoff and full jitter (the AWS architecture blog's "full jitter":
 * a uniform wait between 0 and the capped exponential), bounded by attempts and by total time.
 * A `Retry-After` of the server wins over the computed wait.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** The cap of the first wait; doubles per attempt. */
  baseDelayMs: number;
  /** No computed wait exceeds this. */
  maxDelayMs: number;
  /** No retry starts after this much time since the first attempt (waits included). */
  maxElapsedMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 8_000, maxElapsedMs: 30_000 };

/** What the SDK needs of time and chance; tests inject their own. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};

/** The full-jitter wait before retry number `retry` (1 for the first retry). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * cap);
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** Statuses a safe request may retry: rate limits, transient server and gateway failures. */
const TRANSIENT_STATUSES = new Set([429, 500, 502, 503, 504]);

/**
 * Whether a failed answer may be retried at all: a transient status, or a 409 whose code says the
 * first request with this idempotency key is still running (meant to be retried). Every other 4xx
 * would fail the same way again.
 */
export function isRetryableStatus(status: number, code: string | undefined): boolean {
  return TRANSIENT_STATUSES.has(status) || (status === 409 && code === "IDEMPOTENCY_KEY_IN_USE");
}
