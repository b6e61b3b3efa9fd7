/**
 * The little of a Prisma client (or transaction client) that the event machinery needs. Raw,
 * parameterized SQL keeps this package independent of any one service's generated client: each
 * service's schema declares the `outbox_event` and `processed_event` models, and the schema-drift
 * test proves their columns match what is used here.
 */
export interface SqlClient {
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T>;
}

/** Runs `fn` in one database transaction: commits when it resolves, rolls back when it rejects. */
export type RunInTransaction<Tx extends SqlClient> = <R>(fn: (tx: Tx) => Promise<R>) => Promise<R>;
