import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import type { LimitStore } from "../rate-limit/limit-store";
import { policyOf, type TokenBucketLimit } from "../rate-limit/limits";
import { rateLimited } from "../rate-limit/rate-limited";

/** After authentication: the per-OAuth-client rate limit (decisions.md section 14). */
export function limitPerClient(store: LimitStore, perClient: TokenBucketLimit): onRequestAsyncHookHandler {
  const policy = policyOf(perClient);
  const chain = [perClient];
  return async (request: FastifyRequest) => {
    const { decision } = await store.take(chain, [request.principal!.clientId]);
    if (!decision.allowed) throw rateLimited(policy, decision);
  };
}
