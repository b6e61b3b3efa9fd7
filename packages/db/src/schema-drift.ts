import { compareSchemas } from "./compare-schemas";
import { readDatabaseSchema } from "./database-catalog";
import { expectedSchema } from "./expected-schema";
import type { GeneratedDataModel } from "./generated-data-model";
import { withConnection } from "./pg-connection";

/**
 * Differences between a migrated database and the data model a generated Prisma client
 * declares (get it with `generatedDataModelOf(client)`): tables and columns by their @@map/@map
 * names, column types (native or default), nullability, defaults present or not, primary keys,
 * unique and plain indexes, foreign keys and enums, each with Prisma's constraint names.
 *
 * This is the check `prisma migrate diff` would do, for a project whose migrations are written by
 * hand because Prisma's schema engine cannot run here. Returns human-readable sentences; an empty
 * list means the migrations produce exactly what the client expects.
 */
export async function findSchemaDrift(databaseUrl: string, dataModel: GeneratedDataModel): Promise<string[]> {
  const expected = expectedSchema(dataModel);
  const actual = await withConnection(databaseUrl, readDatabaseSchema);
  return compareSchemas(expected, actual);
}
