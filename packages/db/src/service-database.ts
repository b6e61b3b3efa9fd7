import { PgSql } from "./pg-sql";
import { disconnect, openPool, prismaClientOn, type Disconnectable, type PrismaClientClass } from "./prisma-client";
import { databaseReadinessCheck } from "./readiness";

interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface ServiceDatabase<Client> {
  readonly client: Client;
  /** Raw SQL and transactions on the same pool, without Prisma: for the hot paths (pg-sql.ts). */
  readonly sql: PgSql;
  /** For /readyz and the health protocol. */
  readonly readiness: ReturnType<typeof databaseReadinessCheck>;
  /** Ends the pool; register it last for shutdown, after everything that queries. */
  readonly name: "database";
  close(): Promise<void>;
}

/** A service's own database: its generated client on a bounded pool, its probe and its closer. */
export function openDatabase<Client extends Disconnectable & { $queryRawUnsafe<T = unknown>(query: string): PromiseLike<T> }>(
  ClientClass: PrismaClientClass<Client>,
  opts: { url: string; maxConnections: number; logger: WarnLogger },
): ServiceDatabase<Client> {
  // An idle pooled connection that breaks (e.g. a database restart) is replaced, not fatal.
  const pool = openPool({ url: opts.url, maxConnections: opts.maxConnections, onPoolError: (err) => opts.logger.warn({ err }, "idle database connection failed") });
  const client = prismaClientOn(ClientClass, pool, { endsPool: false });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await disconnect(client);
      await pool.end();
    })());
  const sql = new PgSql(pool);
  // The probe's SELECT 1 on the pool directly: through Prisma it was most of an idle service's
  // Prisma time (the gateway asks every service every 10 s), for the same round trip.
  return { client, sql, readiness: databaseReadinessCheck(sql), name: "database", close };
}
