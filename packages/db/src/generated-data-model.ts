/**
 * What a generated Prisma 7 client declares about the database, as it carries it at runtime.
 *
 * The generated `internal/class.ts` builds the client from a config holding `runtimeDataModel`
 * (models, fields, @map/@@map names, scalar kinds; pruned of everything else) and
 * `inlineSchema` (the schema.prisma text it was generated from). Every client instance keeps
 * them as `_runtimeDataModel` and `_engineConfig.inlineSchema`; there is no public accessor
 * (`Prisma.dmmf` is gone in the `prisma-client` generator).
 */
export interface GeneratedDataModel {
  runtimeDataModel: RuntimeDataModel;
  inlineSchema: string;
}

/** The pruned runtime data model as Prisma 7.10 emits it. */
export interface RuntimeDataModel {
  models: Record<string, RuntimeModel>;
}

export interface RuntimeModel {
  dbName: string | null;
  schema?: string | null;
  fields: RuntimeField[];
}

export interface RuntimeField {
  name: string;
  /** `scalar`, `enum` or `object` (a relation). */
  kind: string;
  type: string;
  dbName?: string | null;
  relationName?: string;
}

/**
 * Reads the data model out of a generated client instance (constructing one connects nothing).
 * Throws when a Prisma upgrade moved these internals, so drift checks fail loudly, not vacuously.
 */
export function generatedDataModelOf(client: object): GeneratedDataModel {
  const internals = client as { _runtimeDataModel?: unknown; _engineConfig?: { inlineSchema?: unknown } };
  const runtimeDataModel = internals._runtimeDataModel;
  const inlineSchema = internals._engineConfig?.inlineSchema;
  if (!isRuntimeDataModel(runtimeDataModel) || typeof inlineSchema !== "string") {
    throw new Error(
      "This Prisma client does not expose _runtimeDataModel and _engineConfig.inlineSchema; " +
        "the generated client's internals changed, update @tawsil/db generated-data-model.ts",
    );
  }
  return { runtimeDataModel, inlineSchema };
}

function isRuntimeDataModel(value: unknown): value is RuntimeDataModel {
  if (typeof value !== "object" || value === null || !("models" in value)) return false;
  const models = value.models;
  return (
    typeof models === "object" &&
    models !== null &&
    Object.values(models).every((model: unknown) => typeof model === "object" && model !== null && "fields" in model && Array.isArray(model.fields))
  );
}
