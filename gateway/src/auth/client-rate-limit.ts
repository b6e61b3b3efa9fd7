import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { rateLimited } from "../rate-limit/rate-limited";
import type { TokenBuckets } from "../rate-limit/token-bucket";

/**
 * After authentication: the per-OAuth-client rate limit (decisions.md section 14), or with
 * `keyOf` another key (a driver's id: the per-driver limit, whatever client they use).
 */
export function limitPerClient(buckets: TokenBuckets, keyOf: (request: FastifyRequest) => string = (request) => request.principal!.clientId, name = "client"): onRequestAsyncHookHandler {
  const policy = { name, quota: buckets.capacity, windowSeconds: Math.max(1, Math.round(buckets.capacity / buckets.perSecond)) };
  return async (request: FastifyRequest) => {
    const decision = buckets.take(keyOf(request));
    if (!decision.allowed) throw rateLimited(policy, decision);
  };
}
