/** The part of the pool's raw SQL (PgSql) or a Prisma client a readiness probe uses. */
interface Queryable {
  $queryRawUnsafe<T = unknown>(query: string): PromiseLike<T>;
}

/**
 * Readiness of the service's database: one round trip through the pool. A pool that cannot hand
 * out a connection within its timeout fails the probe instead of hanging it.
 */
export function databaseReadinessCheck(db: Queryable): { readonly name: "database"; check(): Promise<void> } {
  return {
    name: "database",
    async check() {
      await db.$queryRawUnsafe("SELECT 1");
    },
  };
}
