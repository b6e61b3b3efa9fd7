import { PrismaPg } from "@prisma/adapter-pg";
import { ConnectionAwarePool } from "./connection-aware-pool";

/** What every generated Prisma 7 client class accepts: a driver adapter instead of a url, and how errors read. */
export type PrismaClientClass<Client> = new (options: { adapter: PrismaPg; errorFormat?: "pretty" | "colorless" | "minimal" }) => Client;

/** The part of a Prisma client that shutdown needs. */
export interface Disconnectable {
  $disconnect(): Promise<void>;
}

export interface PrismaClientOptions {
  /** postgresql:// url of the service's own database. */
  url: string;
  /** Pool size per process; the default (10) times replicas must stay under max_connections. */
  maxConnections?: number;
  /**
   * How long to wait for a free or new connection. node-postgres waits forever by default, which
   * turns a database outage into hung requests and a /readyz that never answers; failing fast
   * lets callers return 503.
   */
  connectionTimeoutMs?: number;
  /** Errors of idle pooled connections (e.g. the server restarted); they are not request errors. */
  onPoolError?: (error: Error) => void;
  /**
   * Defaults to "minimal": Prisma's other formats capture a call site (`new Error()`, a stack
   * trace) on every query only to prefix a failed query's message with the calling line; with
   * source maps on that was a top entry of every service's CPU profile. Errors keep their code
   * (P2002, P2034, ...), meta and the driver's own message (SQLSTATEs included), which is all the
   * services map. The others are for measuring that cost (make bench).
   */
  errorFormat?: "pretty" | "colorless" | "minimal";
}

const DEFAULT_CONNECTION_TIMEOUT_MS = 5_000;

/**
 * Builds a service's generated PrismaClient on a node-postgres pool through @prisma/adapter-pg
 * (Prisma 7 has no Rust query engine; the adapter is the connection). Nothing connects until the
 * first query, so constructing the client never fails on a database that is down.
 *
 * Disconnect story: the adapter owns its pool, and `client.$disconnect()` ends it. Call
 * `disconnect(client)` once, after in-flight work has drained (SIGTERM), never per request.
 * A query issued after that opens a new pool, so shutdown order matters: stop consumers and
 * servers first, then disconnect.
 */
export function createPrismaClient<Client extends Disconnectable>(
  ClientClass: PrismaClientClass<Client>,
  options: PrismaClientOptions,
): Client {
  return prismaClientOn(ClientClass, openPool(options), { ...options, endsPool: true });
}

/**
 * The pool a service's database work runs on: our pool, so that a lost connection fails with a
 * SQLSTATE (connection-aware-pool.ts). One per process, shared by the Prisma client and the raw
 * statements of the hot paths (pg-sql.ts), so the connection budget stays one number.
 */
export function openPool(options: Pick<PrismaClientOptions, "url" | "maxConnections" | "connectionTimeoutMs" | "onPoolError">): ConnectionAwarePool {
  const pool = new ConnectionAwarePool({
    connectionString: options.url,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
    ...(options.maxConnections === undefined ? {} : { max: options.maxConnections }),
  });
  // An idle connection that breaks (a restart, a dropped database) is replaced at the next
  // checkout: never an unhandled "error" that ends the process. Listening here, not through the
  // Prisma adapter, which listens only once Prisma first connects: raw statements may be all
  // that runs on the pool.
  pool.on("error", (error) => options.onPoolError?.(error));
  return pool;
}

/**
 * The generated client on `pool`. With `endsPool`, its $disconnect ends the pool (and would open
 * one of the same options after that); without, the pool is the caller's to end (openDatabase:
 * the pool also serves raw statements, and Prisma, which connects lazily, may never have used it).
 */
export function prismaClientOn<Client extends Disconnectable>(
  ClientClass: PrismaClientClass<Client>,
  pool: ConnectionAwarePool,
  options: Pick<PrismaClientOptions, "errorFormat"> & { endsPool: boolean },
): Client {
  // The pool's idle errors are openPool's to handle.
  const adapter = new PrismaPg(pool, { disposeExternalPool: options.endsPool });
  return new ClientClass({ adapter, errorFormat: options.errorFormat ?? "minimal" });
}

/** Ends the client's pool; resolves once every connection is closed. */
export async function disconnect(client: Disconnectable): Promise<void> {
  await client.$disconnect();
}
