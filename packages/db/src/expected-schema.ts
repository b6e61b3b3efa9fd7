import { foreignKeyName, indexName, primaryKeyName, uniqueIndexName } from "./constraint-names";
import { nativeTypeName, scalarTypeName } from "./postgres-types";
import type { DatamodelField, DatamodelIndex, DatamodelModel, PrismaSchema } from "./prisma-schema";
import type { ForeignKeyShape, IndexShape, ReferentialAction, SchemaShape, TableShape } from "./schema-shape";

/** `@default(...)` functions Prisma evaluates in the client: the column itself has no default. */
const CLIENT_SIDE_DEFAULTS = new Set(["uuid", "cuid", "nanoid", "ulid"]);
const REFERENTIAL_ACTIONS: readonly ReferentialAction[] = ["Cascade", "Restrict", "NoAction", "SetNull", "SetDefault"];

/**
 * The tables, columns, keys, indexes, foreign keys and enums a schema declares, as Prisma's
 * migrations would create them for PostgreSQL. Constraint names follow Prisma's conventions unless
 * the schema maps them; a foreign key's `map:` is not in the DMMF, so such a name reads as drift.
 */
export function expectedSchema(schema: PrismaSchema): SchemaShape {
  const { datamodel } = schema;
  const models = new Map(datamodel.models.map((model) => [model.name, model]));
  const enumNames = new Map(datamodel.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const tableOf = (modelName: string): DatamodelModel => {
    const model = models.get(modelName);
    if (!model) throw new Error(`Model ${modelName} is not in the schema`);
    return model;
  };
  const tables = new Map<string, TableShape>();
  for (const model of datamodel.models) {
    if (model.schema) throw new Error(`Model ${model.name} uses @@schema; drift detection covers one schema`);
    const table = tableShape(model, enumNames);
    if (schema.relationMode === "foreignKeys") table.foreignKeys.push(...foreignKeys(model, table.name, tableOf));
    for (const index of datamodel.indexes.filter((candidate) => candidate.model === model.name)) addIndex(table, model, index, schema.partialIndexes);
    tables.set(table.name, table);
  }
  const enums = new Map(datamodel.enums.map((e) => [e.dbName ?? e.name, e.values.map((value) => value.dbName ?? value.name)]));
  return { tables, enums };
}

const tableNameOf = (model: DatamodelModel): string => model.dbName ?? model.name;

function columnOf(model: DatamodelModel, fieldName: string): string {
  const field = model.fields.find((candidate) => candidate.name === fieldName);
  if (!field) throw new Error(`Field ${model.name}.${fieldName} is not in the schema`);
  return field.dbName ?? field.name;
}

function tableShape(model: DatamodelModel, enumNames: ReadonlyMap<string, string>): TableShape {
  const table: TableShape = { name: tableNameOf(model), source: `model ${model.name}`, columns: new Map(), primaryKey: null, indexes: [], foreignKeys: [] };
  for (const field of model.fields) {
    if (field.kind !== "scalar" && field.kind !== "enum") continue;
    const column = field.dbName ?? field.name;
    table.columns.set(column, {
      name: column,
      source: `${model.name}.${field.name}`,
      type: columnType(field, enumNames),
      nullable: !field.isRequired || field.isList,
      hasDefault: hasDatabaseDefault(field),
    });
  }
  return table;
}

function columnType(field: DatamodelField, enumNames: ReadonlyMap<string, string>): string | null {
  const suffix = field.isList ? "[]" : "";
  if (field.kind === "enum") return `${enumNames.get(field.type) ?? field.type}${suffix}`;
  const base = field.nativeType ? nativeTypeName(field.nativeType[0], field.nativeType[1]) : scalarTypeName(field.type);
  return base === null ? null : `${base}${suffix}`;
}

function hasDatabaseDefault(field: DatamodelField): boolean {
  if (!field.hasDefaultValue) return false;
  const value: unknown = field.default;
  const fn = typeof value === "object" && value !== null && "name" in value ? String(value.name) : undefined;
  return fn === undefined || !CLIENT_SIDE_DEFAULTS.has(fn);
}

/** Primary keys, unique and plain indexes: names as mapped, else Prisma's conventions. */
function addIndex(table: TableShape, model: DatamodelModel, index: DatamodelIndex, partial: ReadonlySet<string>): void {
  const keys = index.fields.map((key) => ({ column: columnOf(model, key.name), descending: key.sortOrder === "desc" }));
  const columns = keys.map((key) => (key.descending ? `${key.column} DESC` : key.column));
  const plain = keys.map((key) => key.column);
  const mapped = index.dbName ?? undefined;
  if (index.type === "id") table.primaryKey = { name: mapped ?? primaryKeyName(table.name), columns };
  else if (index.type === "unique") table.indexes.push(indexShape(mapped ?? uniqueIndexName(table.name, plain), columns, true));
  else if (index.type === "normal") {
    const shape = indexShape(mapped ?? indexName(table.name, plain), columns, false, index.algorithm);
    table.indexes.push(mapped && partial.has(mapped) ? { ...shape, special: "partial" } : shape);
  }
  else throw new Error(`${index.type} index on ${model.name} is not covered by drift detection`);
}

function indexShape(name: string, columns: string[], unique: boolean, algorithm?: string | null): IndexShape {
  return { name, columns, unique, method: algorithm ? algorithm.toLowerCase() : "btree" };
}

/** The foreign keys of the relations this model holds the fields of. */
function foreignKeys(model: DatamodelModel, table: string, tableOf: (name: string) => DatamodelModel): ForeignKeyShape[] {
  return model.fields.flatMap((field) => {
    const from = field.relationFromFields ?? [];
    if (field.kind !== "object" || from.length === 0) return [];
    const referenced = tableOf(field.type);
    const columns = from.map((name) => columnOf(model, name));
    const optional = from.some((name) => model.fields.find((f) => f.name === name)?.isRequired === false);
    return [
      {
        name: foreignKeyName(table, columns),
        columns,
        referencedTable: tableNameOf(referenced),
        referencedColumns: (field.relationToFields ?? []).map((name) => columnOf(referenced, name)),
        onDelete: action(field.relationOnDelete) ?? (optional ? "SetNull" : "Restrict"),
        onUpdate: action(field.relationOnUpdate) ?? "Cascade",
      },
    ];
  });
}

function action(value: string | undefined | null): ReferentialAction | undefined {
  if (!value) return undefined;
  const found = REFERENTIAL_ACTIONS.find((candidate) => candidate === value);
  if (!found) throw new Error(`Unknown referential action ${value}`);
  return found;
}
