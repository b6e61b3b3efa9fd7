import type { FastifyRequest } from "fastify";
import type { RateLimitPolicy } from "../rate-limit/rate-limited";
import type { SlidingWindow } from "../rate-limit/sliding-window";
import type { Decision } from "../rate-limit/token-bucket";

/**
 * The public tracking limits of decisions.md section 14, shared by the JSON endpoint and the
 * customer page: per client address across codes (unknown codes included: a random code costs
 * the tracking and shipment services a lookup each) and per code. Both are asked before any RPC.
 */
export interface PublicTrackingLimits {
  readonly perAddress: SlidingWindow;
  readonly perCode: SlidingWindow;
}

export interface Refusal {
  readonly policy: RateLimitPolicy;
  readonly decision: Decision;
}

const policyOf = (name: string, window: SlidingWindow): RateLimitPolicy => ({ name, quota: window.limit, windowSeconds: window.windowSeconds });

/** Counts one public read of `code`; the refusal (its policy and decision) when a limit is spent. */
export function takePublicRead(limits: PublicTrackingLimits, request: FastifyRequest, code: string): Refusal | undefined {
  // request.ip is the client's address behind TRUSTED_PROXY_HOPS proxies (app.ts).
  const fromAddress = limits.perAddress.take(request.ip);
  if (!fromAddress.allowed) return { policy: policyOf("tracking-address", limits.perAddress), decision: fromAddress };
  const forCode = limits.perCode.take(code);
  if (!forCode.allowed) return { policy: policyOf("tracking-link", limits.perCode), decision: forCode };
  return undefined;
}
