import pg from "pg";
import { DatabaseConnectionError, sqlStateOf } from "./failures";

/**
 * node-postgres reports some failures as plain Errors with no code: a connection that ended under
 * a query ("Connection terminated unexpectedly"), a client queried after its connection broke, a
 * connect that timed out, a pool that waited too long for a connection. Nothing but their wording
 * tells them apart from a bug, so they became 500s (issue 26). The client and pool below know the
 * state they were in when it happened and give such a failure the SQLSTATE of its condition
 * (DatabaseConnectionError: 08001 could not connect, 08006 connection lost), which the Prisma
 * adapter and failures.ts then read like any other.
 */

type Callback = (error: Error | undefined, ...rest: unknown[]) => void;

/**
 * A failure that already says what it is: a SQLSTATE. A socket error's code (ECONNREFUSED,
 * EHOSTUNREACH, EPIPE, ...) is not enough: the Prisma adapter maps four of them and rethrows the
 * rest, and Prisma then keeps the code but drops the `syscall` that marks it a socket error. A
 * restarted PostgreSQL container answered EHOSTUNREACH, a 500 in CI (issue 26). The socket error
 * stays the cause.
 */
const explained = (error: unknown): boolean => sqlStateOf(error) !== undefined;

function couldNotConnect(error: Error): Error {
  return explained(error) ? error : new DatabaseConnectionError("08001", "could not connect to the database", { cause: error });
}

/** Wraps the Node-style callback (last argument) or the returned promise of a call with `map`. */
function mapFailure<T>(args: unknown[], call: (args: unknown[]) => T, map: (error: Error) => Error): T {
  const last = args.at(-1);
  if (typeof last === "function") {
    const callback = last as Callback;
    return call([...args.slice(0, -1), (error: Error | undefined, ...rest: unknown[]) => callback(error ? map(error) : error, ...rest)]);
  }
  const result = call(args);
  if (result instanceof Promise) return result.catch((error: Error) => Promise.reject(map(error))) as T;
  return result;
}

/** A pg Client that knows when its connection has gone, and says so in the failures of its queries. */
export class ConnectionAwareClient extends pg.Client {
  #lost = false;

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // Emitted before the queries in flight are failed (node-postgres fails them on the next tick).
    this.on("error", () => {
      this.#lost = true;
    });
    this.on("end", () => {
      this.#lost = true;
    });
  }

  override connect(...args: unknown[]): never {
    return mapFailure(args, (a) => (super.connect as (...x: unknown[]) => unknown)(...a), couldNotConnect) as never;
  }

  override query(...args: unknown[]): never {
    // A Submittable (a cursor, a stream) reports its own errors.
    if (typeof (args[0] as { submit?: unknown } | undefined)?.submit === "function") return (super.query as (...x: unknown[]) => unknown)(...args) as never;
    return mapFailure(args, (a) => (super.query as (...x: unknown[]) => unknown)(...a), (error) => this.#lostConnection(error)) as never;
  }

  override end(...args: unknown[]): never {
    this.#lost = true;
    return (super.end as (...x: unknown[]) => unknown)(...args) as never;
  }

  #lostConnection(error: Error): Error {
    return this.#lost ? connectionLost(error) : error;
  }
}

function connectionLost(error: Error): Error {
  return explained(error) ? error : new DatabaseConnectionError("08006", "the connection to the database was lost", { cause: error });
}

/**
 * A pg Pool of ConnectionAwareClients. Its own code-less failures say 08001 (a wait for a
 * connection that timed out, a connect that failed). `pool.query` answers a client's "error"
 * event (its connection broke) before the query's own failure, with that event's error: the
 * client is gone, so a code-less one says 08006.
 */
export class ConnectionAwarePool extends pg.Pool {
  constructor(config: pg.PoolConfig) {
    super({ ...config, Client: ConnectionAwareClient as unknown as typeof pg.Client });
  }

  override connect(...args: unknown[]): never {
    return mapFailure(args, (a) => (super.connect as (...x: unknown[]) => unknown)(...a), couldNotConnect) as never;
  }

  override query(...args: unknown[]): never {
    return mapFailure(args, (a) => (super.query as (...x: unknown[]) => unknown)(...a), connectionLost) as never;
  }
}
