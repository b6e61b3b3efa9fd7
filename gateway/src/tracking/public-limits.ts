import type { FastifyRequest } from "fastify";
import type { LimitStore } from "../rate-limit/limit-store";
import { policyOf, type SlidingWindowLimit } from "../rate-limit/limits";
import type { RateLimitPolicy } from "../rate-limit/rate-limited";
import type { Decision } from "../rate-limit/token-bucket";

/**
 * The public tracking limits of decisions.md section 14, shared by the JSON endpoint and the
 * customer page: per client address across codes (unknown codes included: a random code costs
 * the tracking and shipment services a lookup each) and per code. Both are asked before any RPC,
 * in one call to the limits' store.
 */
export interface PublicTrackingLimits {
  readonly store: LimitStore;
  /** Per client address, then per code: a code is counted only for requests its address let through. */
  readonly chain: readonly [SlidingWindowLimit, SlidingWindowLimit];
}

export function publicTrackingLimits(store: LimitStore, perAddress: SlidingWindowLimit, perCode: SlidingWindowLimit): PublicTrackingLimits {
  return { store, chain: [perAddress, perCode] };
}

export interface Refusal {
  readonly policy: RateLimitPolicy;
  readonly decision: Decision;
}

/** Counts one public read of `code`; the refusal (its policy and decision) when a limit is spent. */
export async function takePublicRead(limits: PublicTrackingLimits, request: FastifyRequest, code: string): Promise<Refusal | undefined> {
  // request.ip is the client's address as the trusted proxies (TRUSTED_PROXY_CIDRS) report it (app.ts).
  const { refusedBy, decision } = await limits.store.take(limits.chain, [request.ip, code]);
  return refusedBy ? { policy: policyOf(refusedBy), decision } : undefined;
}
