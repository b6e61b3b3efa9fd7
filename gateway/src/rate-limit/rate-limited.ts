import { ProblemError } from "../problem/problem-error";
import type { Decision } from "./token-bucket";

/**
 * 429 with `Retry-After` and the IETF RateLimit-Policy / RateLimit fields
 * (draft-ietf-httpapi-ratelimit-headers) naming the policy that refused the request.
 */
export function rateLimited(policy: { name: string; quota: number; windowSeconds: number }, decision: Pick<Decision, "retryAfterSeconds" | "remaining">): ProblemError {
  const retryAfter = Math.max(1, decision.retryAfterSeconds);
  return new ProblemError(
    "RATE_LIMITED",
    { en: `Too many requests; retry in ${retryAfter} s.`, ar: `طلبات كثيرة جدًا؛ أعد المحاولة بعد ${retryAfter} ثانية.` },
    {
      headers: {
        "retry-after": String(retryAfter),
        "ratelimit-policy": `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`,
        ratelimit: `"${policy.name}";r=${decision.remaining};t=${retryAfter}`,
      },
    },
  );
}
