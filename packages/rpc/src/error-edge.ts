import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "@tawsil/logging";

/**
 * The edge of every service: a ConnectError (a domain error the service already mapped) passes
 * through; anything else is a bug or an outage whose message may hold SQL, hosts or stack frames,
 * so it is logged here and replaced by a bare Internal error.
 */
export function toEdgeError(error: unknown, logger: Logger, procedure: string): ConnectError {
  if (error instanceof ConnectError) return error;
  logger.error({ err: error, procedure }, "unhandled error in RPC handler");
  return new ConnectError("internal error", Code.Internal);
}
