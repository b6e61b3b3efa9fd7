/**
 * The one classification of database failures (issue 26), for every service and the RPC edge: a
 * database that is down, restarting or unreachable is "unavailable" (503 with Retry-After, retry
 * later); anything else is the caller's to map or a bug. Read from what the driver says in its own
 * fields, never from message text:
 * - node-postgres's `DatabaseError` (`code` is the SQLSTATE, with a `severity`);
 * - the Prisma pg adapter's `DriverAdapterError` (`cause.kind`, `cause.originalCode`), which Prisma
 *   carries in `meta.driverAdapterError` of its known errors, and Prisma's own codes;
 * - Node's socket errors (`code` with a `syscall`), alone or inside an AggregateError, or their
 *   code as Prisma copies it onto its own error;
 * - `DatabaseConnectionError`, which our pool (connection-aware-pool.ts) gives the failures
 *   node-postgres reports with no code at all (a connection that ended mid-query, a connect that
 *   timed out).
 * Pure: imports nothing, so the RPC edge of a process with no database pays nothing for it.
 */

/**
 * SQLSTATEs of a server going away or not there yet: class 08 (connection exception), class 53
 * (insufficient resources: too many connections, out of memory, disk full) and 57P01 admin
 * shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up, shutting down, recovering).
 */
function unavailableSqlState(code: string): boolean {
  return code.startsWith("08") || code.startsWith("53") || code === "57P01" || code === "57P02" || code === "57P03";
}

/** Kinds of the pg driver adapter's errors that mean the server could not be used. */
const UNAVAILABLE_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);

/**
 * Prisma's codes for the same: P1001 can't reach the server, P1002 timed out reaching it, P1008
 * operation timed out, P1017 server closed the connection, P2024 timed out taking a pool
 * connection, P2037 too many connections.
 */
const UNAVAILABLE_PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2037"]);

/** Node's socket errors of a refused, reset, unreachable or timed-out connection. */
const UNAVAILABLE_SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/**
 * A failure node-postgres reports without a SQLSTATE, given the standard one for its condition by
 * our pool: 08001 when no connection could be made, 08006 when a connection broke under a query.
 * Its `severity` makes the Prisma adapter treat it as a database error and keep the code.
 */
export class DatabaseConnectionError extends Error {
  override readonly name = "DatabaseConnectionError";
  readonly severity = "FATAL";
  constructor(
    readonly code: "08001" | "08006",
    message: string,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null;

/** The error, its causes, the adapter error Prisma carries, and an AggregateError's members. */
function* causes(error: unknown): Generator<Node> {
  const pending: unknown[] = [error];
  const seen = new Set<unknown>();
  while (pending.length > 0 && seen.size < 16) {
    const node = pending.shift();
    if (!isNode(node) || seen.has(node)) continue;
    seen.add(node);
    yield node;
    pending.push(node.cause);
    if (isNode(node.meta)) pending.push(node.meta.driverAdapterError);
    if (Array.isArray(node.errors)) pending.push(...(node.errors as unknown[]));
  }
}

/** The SQLSTATE one node reports: a pg DatabaseError's (or ours), or the adapter's record of it. */
function sqlStateIn(node: Node): string | undefined {
  if (typeof node.code === "string" && typeof node.severity === "string") return node.code;
  if (typeof node.kind === "string") {
    if (typeof node.originalCode === "string") return node.originalCode;
    if (node.kind === "postgres" && typeof node.code === "string") return node.code;
  }
  return undefined;
}

/** The PostgreSQL SQLSTATE behind a failure (pg's, the adapter's, Prisma's), if there is one. */
export function sqlStateOf(error: unknown): string | undefined {
  for (const node of causes(error)) {
    const state = sqlStateIn(node);
    if (state !== undefined) return state;
  }
  return undefined;
}

/** The constraint (index) name a unique violation names, from the driver's fields. */
export function violatedConstraintOf(error: unknown): string | undefined {
  for (const node of causes(error)) {
    if (typeof node.constraint === "string" && typeof node.severity === "string") return node.constraint;
    if (node.kind === "UniqueConstraintViolation" && isNode(node.constraint) && typeof node.constraint.index === "string") return node.constraint.index;
  }
  return undefined;
}

/** Whether a failure means the database is down, restarting or unreachable: answer 503, retry later. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const node of causes(error)) {
    if (node instanceof DatabaseConnectionError) return true;
    const state = sqlStateIn(node);
    if (state !== undefined && unavailableSqlState(state)) return true;
    if (typeof node.kind === "string" && UNAVAILABLE_KINDS.has(node.kind)) return true;
    if (typeof node.code !== "string") continue;
    if (/^P\d{4}$/.test(node.code) && UNAVAILABLE_PRISMA_CODES.has(node.code)) return true;
    // Prisma's known errors copy a socket error's code the adapter did not map, without its syscall.
    const socketLike = typeof node.syscall === "string" || Array.isArray(node.errors) || typeof node.clientVersion === "string";
    if (socketLike && UNAVAILABLE_SOCKET_CODES.has(node.code)) return true;
  }
  return false;
}
