import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { rateLimited } from "../rate-limit/rate-limited";
import type { TokenBuckets } from "../rate-limit/token-bucket";

/** After authentication: the per-OAuth-client rate limit (decisions.md section 14). */
export function limitPerClient(buckets: TokenBuckets): onRequestAsyncHookHandler {
  const policy = { name: "client", quota: buckets.capacity, windowSeconds: Math.max(1, Math.round(buckets.capacity / buckets.perSecond)) };
  return async (request: FastifyRequest) => {
    const decision = buckets.take(request.principal!.clientId);
    if (!decision.allowed) throw rateLimited(policy, decision);
  };
}
