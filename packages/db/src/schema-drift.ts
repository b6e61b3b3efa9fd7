import { compareSchemas } from "./compare-schemas";
import { readDatabaseSchema } from "./database-catalog";
import { expectedSchema } from "./expected-schema";
import { withConnection } from "./pg-connection";
import { readPrismaSchema } from "./prisma-schema";

/**
 * Differences between a migrated database and what a schema.prisma declares, as Prisma reads it
 * (its DMMF, through Prisma's public schema API): tables and columns by their @@map/@map
 * names, column types (native or default), nullability, defaults present or not, primary keys,
 * unique and plain indexes, foreign keys and enums, each with Prisma's constraint names.
 *
 * This is the check `prisma migrate diff` would do, for a project whose migrations are written by
 * hand because Prisma's schema engine cannot run here. Returns human-readable sentences; an empty
 * list means the migrations produce exactly what the client expects.
 */
export async function findSchemaDrift(databaseUrl: string, schema: string): Promise<string[]> {
  const expected = expectedSchema(await readPrismaSchema(schema));
  const actual = await withConnection(databaseUrl, readDatabaseSchema);
  return compareSchemas(expected, actual);
}
