import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { reasonOf } from "../problem/from-connect";
import type { PeerHealth } from "./peer-health";

/**
 * Codes a call ends with when the peer itself could not take it: the connection was refused or
 * reset, the peer died mid-call, or it answered Unavailable of its own (its database is away).
 * Only without a reason of ours: a peer that answers with one (DEPENDENCY_UNAVAILABLE: a service
 * behind it is down) is up. A deadline is not here: slow is not down, and the health check decides.
 */
const UNREACHABLE = new Set([Code.Unavailable, Code.Canceled, Code.Aborted]);

/** Whether a call or a health check failed because the peer could not take it at all. */
export function isUnreachable(error: unknown): boolean {
  return error instanceof ConnectError && UNREACHABLE.has(error.code) && reasonOf(error) === undefined;
}

/**
 * The per-peer circuit of a Connect client: while the peer is known down, a call fails at once with
 * Unavailable (a 503 with Retry-After at the edge) and nothing is sent; a call that finds it
 * unreachable marks it down and asks its health watch to look again now.
 */
export function failFast(health: PeerHealth): Interceptor {
  return (next) => async (request) => {
    if (!health.available) throw new ConnectError(`${health.name} is unavailable`, Code.Unavailable);
    try {
      return await next(request);
    } catch (error) {
      // Not when the caller gave up (its signal): that says nothing of the peer.
      if (isUnreachable(error) && !request.signal.aborted) health.suspect();
      throw error;
    }
  };
}
