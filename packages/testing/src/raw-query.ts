import { createPrismaClient, disconnect, type Disconnectable, type PrismaClientClass } from "@tawsil/db";

interface RawQueryable extends Disconnectable {
  $queryRawUnsafe<T>(sql: string, ...params: unknown[]): PromiseLike<T>;
}

/** Reads or changes a service's database behind its back (counts, clock shifts), on a connection of its own. */
export async function rawQuery<T>(ClientClass: PrismaClientClass<RawQueryable>, url: string, sql: string, ...params: unknown[]): Promise<T[]> {
  const client = createPrismaClient(ClientClass, { url, maxConnections: 1 });
  try {
    return await client.$queryRawUnsafe<T[]>(sql, ...params);
  } finally {
    await disconnect(client);
  }
}
