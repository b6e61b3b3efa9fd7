import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "@tawsil/logging";

/**
 * The edge of every service: a ConnectError (a domain error the service already mapped) passes
 * through; a database that is down or restarting becomes Unavailable (the architecture: a
 * dependency that is down makes the caller fail closed with 503, and the caller may retry);
 * anything else is a bug whose message may hold SQL, hosts or stack frames, so it is logged here
 * and replaced by a bare Internal error.
 */
export function toEdgeError(error: unknown, logger: Logger, procedure: string): ConnectError {
  if (error instanceof ConnectError) return error;
  if (isDatabaseOutage(error)) {
    logger.warn({ err: error, procedure }, "database unavailable");
    return new ConnectError("database unavailable", Code.Unavailable);
  }
  logger.error({ err: error, procedure }, "unhandled error in RPC handler");
  return new ConnectError("internal error", Code.Internal);
}

/**
 * SQLSTATEs of a server going away or not yet back (class 08 connection exceptions; 57P01 admin
 * shutdown, 57P02 crash shutdown, 57P03 cannot connect now), Prisma's "can't reach" and "server
 * closed the connection", and the socket errors of a refused or reset connection.
 */
const OUTAGE_CODES = /^(08[0-9A-Z]{3}|57P0[123]|P1001|P1002|P1017|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT)$/;
// The pg driver adapter reports the SQLSTATE inside Prisma's message: "Database error. Code: `57P01`".
// node-postgres's own words for a pooled connection the server dropped.
const OUTAGE_IN_MESSAGE = /Code: `(08[0-9A-Z]{3}|57P0[123])`|ECONNREFUSED|Connection terminated unexpectedly|Can't reach database server|connection error and is not queryable/;

export function isDatabaseOutage(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message, meta } = e as { code?: unknown; message?: unknown; meta?: { code?: unknown } };
    if (typeof code === "string" && OUTAGE_CODES.test(code)) return true;
    if (typeof meta?.code === "string" && OUTAGE_CODES.test(meta.code)) return true;
    if (typeof message === "string" && OUTAGE_IN_MESSAGE.test(message)) return true;
  }
  return false;
}
