import { getDMMF } from "@prisma/get-dmmf";
import wasm from "@prisma/prisma-schema-wasm";

/*
 * The parts of Prisma's DMMF (its own reading of a schema.prisma, from the WebAssembly schema
 * engine: no native engine) that the drift check reads. Declared here because @prisma/get-dmmf
 * types its answer through a package it does not re-export.
 */
export interface DatamodelField {
  readonly name: string;
  readonly dbName?: string | null;
  readonly kind: "scalar" | "enum" | "object" | "unsupported";
  readonly type: string;
  readonly isList: boolean;
  readonly isRequired: boolean;
  readonly hasDefaultValue: boolean;
  /** A literal, a list of literals, or a function call `{ name: "now", args: [] }`. */
  readonly default?: unknown;
  /** `["VarChar", ["200"]]` for `@db.VarChar(200)`. */
  readonly nativeType?: readonly [string, readonly string[]] | null;
  readonly relationFromFields?: readonly string[];
  readonly relationToFields?: readonly string[];
  readonly relationOnDelete?: string;
  readonly relationOnUpdate?: string;
}

export interface DatamodelModel {
  readonly name: string;
  readonly dbName: string | null;
  readonly schema: string | null;
  readonly fields: readonly DatamodelField[];
}

/** Primary keys, unique and plain indexes, whether declared on a field or on the model. */
export interface DatamodelIndex {
  readonly model: string;
  readonly type: "id" | "unique" | "normal" | "fulltext";
  readonly dbName?: string | null;
  readonly algorithm?: string | null;
  readonly fields: readonly { readonly name: string; readonly sortOrder?: "asc" | "desc" }[];
}

export interface Datamodel {
  readonly models: readonly DatamodelModel[];
  readonly enums: readonly { readonly name: string; readonly dbName?: string | null; readonly values: readonly { readonly name: string; readonly dbName?: string | null }[] }[];
  readonly indexes: readonly DatamodelIndex[];
}

export interface PrismaSchema {
  readonly datamodel: Datamodel;
  /** Whether PostgreSQL enforces relations with foreign keys, or the client emulates them. */
  readonly relationMode: "foreignKeys" | "prisma";
  /** Each generator's output folder, as written in the schema (relative to it). */
  readonly generatorOutputs: ReadonlyMap<string, string>;
  /** Names (`map:`) of the indexes declared with a `where:` predicate (preview feature partialIndexes). */
  readonly partialIndexes: ReadonlySet<string>;
}

interface SchemaConfig {
  config: { generators: { name: string; output: { value: string | null } | null }[] };
  errors: unknown[];
}

/**
 * Reads a schema the way `prisma generate` does, through Prisma's public schema API (getDMMF and
 * the schema engine's get_config); a schema Prisma rejects throws with Prisma's own message.
 */
export async function readPrismaSchema(schema: string): Promise<PrismaSchema> {
  const { datamodel } = (await getDMMF({ datamodel: schema })) as { datamodel: Datamodel };
  const parsed = JSON.parse(wasm.get_config(JSON.stringify({ prismaSchema: [["schema.prisma", schema]], datasourceOverrides: {}, ignoreEnvVarErrors: true, env: {} }))) as SchemaConfig;
  if (parsed.errors.length > 0) throw new Error(`Prisma rejected the schema's configuration: ${JSON.stringify(parsed.errors)}`);
  const generatorOutputs = new Map(parsed.config.generators.flatMap((g) => (g.output?.value ? [[g.name, g.output.value] as const] : [])));
  return { datamodel, relationMode: relationModeOf(schema), generatorOutputs, partialIndexes: partialIndexesOf(schema) };
}

/**
 * The DMMF drops an index's `where:` predicate, so partial indexes are read from their `@@index`
 * lines, which must name the index (`map:`) for the drift check to match it. The predicate itself
 * is not compared: only that the index is partial.
 */
function partialIndexesOf(schema: string): ReadonlySet<string> {
  const names = new Set<string>();
  for (const line of schema.split("\n")) {
    if (!/^\s*@@index\(.*\bwhere:/.test(line)) continue;
    const name = /\bmap:\s*"([^"]+)"/.exec(line)?.[1];
    if (!name) throw new Error(`A partial index needs a map: name for the drift check: ${line.trim()}`);
    names.add(name);
  }
  return names;
}

/**
 * The one datasource setting the drift check needs that neither the DMMF nor get_config carries:
 * read from the datasource block itself, and only that (Prisma has already validated the schema).
 */
function relationModeOf(schema: string): "foreignKeys" | "prisma" {
  const datasource = /^\s*datasource\s+\w+\s*\{([^}]*)\}/m.exec(schema)?.[1] ?? "";
  return /^\s*relationMode\s*=\s*"prisma"/m.test(datasource) ? "prisma" : "foreignKeys";
}
