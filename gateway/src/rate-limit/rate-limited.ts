import { ProblemError } from "../problem/problem-error";
import type { Decision } from "./token-bucket";

/** A limit as the IETF RateLimit-Policy field names it: `quota` requests per `windowSeconds`. */
export interface RateLimitPolicy {
  readonly name: string;
  readonly quota: number;
  readonly windowSeconds: number;
}

/**
 * `Retry-After` and the IETF RateLimit-Policy / RateLimit fields (draft-ietf-httpapi-ratelimit-headers)
 * naming the policy that refused a request: every 429 carries them (decisions.md section 14), a
 * problem document or the customer page alike.
 */
export function rateLimitHeaders(policy: RateLimitPolicy, decision: Pick<Decision, "retryAfterSeconds" | "remaining">): Record<string, string> {
  const retryAfter = Math.max(1, decision.retryAfterSeconds);
  return {
    "retry-after": String(retryAfter),
    "ratelimit-policy": `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`,
    ratelimit: `"${policy.name}";r=${decision.remaining};t=${retryAfter}`,
  };
}

/** 429 RATE_LIMITED with the headers of the policy that refused the request. */
export function rateLimited(policy: RateLimitPolicy, decision: Pick<Decision, "retryAfterSeconds" | "remaining">): ProblemError {
  const retryAfter = Math.max(1, decision.retryAfterSeconds);
  return new ProblemError(
    "RATE_LIMITED",
    { en: `Too many requests; retry in ${retryAfter} s.`, ar: `طلبات كثيرة جدًا؛ أعد المحاولة بعد ${retryAfter} ثانية.` },
    { headers: rateLimitHeaders(policy, decision) },
  );
}
