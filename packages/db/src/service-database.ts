import { createPrismaClient, disconnect, type Disconnectable, type PrismaClientClass } from "./prisma-client";
import { databaseReadinessCheck } from "./readiness";

interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface ServiceDatabase<Client> {
  readonly client: Client;
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
  const client = createPrismaClient(ClientClass, {
    url: opts.url,
    maxConnections: opts.maxConnections,
    // An idle pooled connection that breaks (e.g. a database restart) is replaced, not fatal.
    onPoolError: (err) => opts.logger.warn({ err }, "idle database connection failed"),
  });
  return { client, readiness: databaseReadinessCheck(client), name: "database", close: () => disconnect(client) };
}
