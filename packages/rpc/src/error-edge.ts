import { Code, ConnectError } from "@connectrpc/connect";
import { isDatabaseUnavailable } from "@tawsil/db/failures";
import type { Logger } from "@tawsil/logging";
import { currentRequestId } from "./request-context";

/**
 * The edge of every service: a ConnectError (a domain error the service already mapped) passes
 * through; a database that is down or restarting becomes Unavailable (the architecture: a
 * dependency that is down makes the caller fail closed with 503, and the caller may retry), as
 * @tawsil/db classifies it for every service; anything else is a bug whose message may hold SQL,
 * hosts or stack frames, so it is logged here and replaced by a bare Internal error. Both lines
 * carry the request id, which the gateway's answer carries too.
 */
export function toEdgeError(error: unknown, logger: Logger, procedure: string): ConnectError {
  if (error instanceof ConnectError) return error;
  if (isDatabaseUnavailable(error)) {
    logger.warn({ err: error, procedure, requestId: currentRequestId() }, "database unavailable");
    return new ConnectError("database unavailable", Code.Unavailable);
  }
  logger.error({ err: error, procedure, requestId: currentRequestId() }, "unhandled error in RPC handler");
  return new ConnectError("internal error", Code.Internal);
}
