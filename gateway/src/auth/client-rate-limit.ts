import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import type { LimitStore } from "../rate-limit/limit-store";
import { policyOf, type TokenBucketLimit } from "../rate-limit/limits";
import { rateLimited } from "../rate-limit/rate-limited";

/**
 * After authentication: the per-OAuth-client rate limit (decisions.md section 14), or with
 * `keyOf` another key (a driver's id: the per-driver limit, whatever client they use). The limit's
 * name names its policy and its keys in the shared store.
 */
export function limitPerClient(store: LimitStore, limit: TokenBucketLimit, keyOf: (request: FastifyRequest) => string = (request) => request.principal!.clientId): onRequestAsyncHookHandler {
  const policy = policyOf(limit);
  const chain = [limit];
  return async (request: FastifyRequest) => {
    const { decision } = await store.take(chain, [keyOf(request)]);
    if (!decision.allowed) throw rateLimited(policy, decision);
  };
}
