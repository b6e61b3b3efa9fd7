/** delivery-api.md Limits and decisions.md section 11. */
export const MAX_ATTEMPTS = 8;
export const FIRST_RETRY_SECONDS = 30;
export const MAX_WAIT_SECONDS = 3600;

/**
 * Seconds to wait after failed attempt `attempt` (1-based): 30 doubling (30, 60, ... 1920), capped
 * at 3600; a Retry-After the receiver sent with 429 or 503 replaces it, capped the same way.
 * Undefined when no attempt is left. `firstRetrySeconds` is a setting so that the fault suite can
 * watch a whole retry schedule in seconds; production keeps the contract's 30.
 */
export function retryDelaySeconds(attempt: number, retryAfterSeconds?: number, firstRetrySeconds = FIRST_RETRY_SECONDS): number | undefined {
  if (attempt >= MAX_ATTEMPTS) return undefined;
  if (retryAfterSeconds !== undefined) return Math.min(Math.max(0, retryAfterSeconds), MAX_WAIT_SECONDS);
  return Math.min(firstRetrySeconds * 2 ** (attempt - 1), MAX_WAIT_SECONDS);
}

/** A Retry-After value (delay-seconds or HTTP-date, RFC 9110 10.2.3) in seconds from `now`; undefined when unreadable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
