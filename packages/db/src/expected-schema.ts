import { foreignKeyName, indexName, primaryKeyName, uniqueIndexName } from "./constraint-names";
import type { GeneratedDataModel, RuntimeModel } from "./generated-data-model";
import {
  argument,
  findAttribute,
  parsePrismaSchema,
  type Attribute,
  type AttributeValue,
  type BlockDeclaration,
  type FieldDeclaration,
} from "./prisma-schema-parser";
import { nativeTypeName, scalarTypeName } from "./postgres-types";
import type { ForeignKeyShape, IndexShape, ReferentialAction, SchemaShape, TableShape } from "./schema-shape";

/** `@default(...)` functions Prisma evaluates in the client: the column itself has no default. */
const CLIENT_SIDE_DEFAULTS = new Set(["uuid", "cuid", "nanoid", "ulid"]);

/**
 * The tables, columns, keys, indexes, foreign keys and enums the generated client expects, as
 * Prisma's migrations would create them for PostgreSQL.
 */
export function expectedSchema(model: GeneratedDataModel): SchemaShape {
  const blocks = parsePrismaSchema(model.inlineSchema);
  const context = new ModelContext(model, blocks);
  const tables = new Map<string, TableShape>();
  for (const [modelName, runtimeModel] of Object.entries(model.runtimeDataModel.models)) {
    if (runtimeModel.schema) throw new Error(`Model ${modelName} uses @@schema; drift detection covers one schema`);
    const table = context.table(modelName, runtimeModel);
    tables.set(table.name, table);
  }
  const enums = new Map<string, string[]>();
  for (const block of blocks.filter((candidate) => candidate.keyword === "enum")) {
    enums.set(mappedName(block.attributes, block.name), block.fields.map((value) => mappedName(value.attributes, value.name)));
  }
  return { tables, enums };
}

class ModelContext {
  private readonly models = new Map<string, BlockDeclaration>();
  private readonly enumNames = new Map<string, string>();
  private readonly foreignKeysEnforced: boolean;

  constructor(
    private readonly model: GeneratedDataModel,
    blocks: BlockDeclaration[],
  ) {
    for (const block of blocks) {
      if (block.keyword === "model") this.models.set(block.name, block);
      if (block.keyword === "enum") this.enumNames.set(block.name, mappedName(block.attributes, block.name));
    }
    const relationMode = blocks.find((block) => block.keyword === "datasource")?.settings.get("relationMode");
    this.foreignKeysEnforced = !(relationMode?.kind === "string" && relationMode.value === "prisma");
  }

  table(modelName: string, runtimeModel: RuntimeModel): TableShape {
    const block = this.block(modelName);
    const name = runtimeModel.dbName ?? modelName;
    const table: TableShape = { name, source: `model ${modelName}`, columns: new Map(), primaryKey: null, indexes: [], foreignKeys: [] };
    for (const runtimeField of runtimeModel.fields) {
      const field = this.field(block, runtimeField.name);
      if (runtimeField.kind === "object") {
        const foreignKey = this.foreignKey(name, block, field);
        if (foreignKey) table.foreignKeys.push(foreignKey);
        continue;
      }
      const column = this.columnName(modelName, field.name);
      table.columns.set(column, {
        name: column,
        source: `${modelName}.${field.name}`,
        type: this.columnType(field, runtimeField.kind),
        nullable: field.optional || field.list,
        hasDefault: hasDatabaseDefault(field),
      });
      const id = findAttribute(field.attributes, "id");
      if (id) table.primaryKey = { name: mapArgument(id) ?? primaryKeyName(name), columns: [column] };
      const unique = findAttribute(field.attributes, "unique");
      if (unique) table.indexes.push(index(mapArgument(unique) ?? uniqueIndexName(name, [column]), [column], true));
    }
    for (const attribute of block.attributes) {
      if (!["id", "unique", "index"].includes(attribute.name)) continue;
      const keys = this.indexKeys(modelName, attribute);
      const columns = keys.map((key) => (key.descending ? `${key.column} DESC` : key.column));
      const plain = keys.map((key) => key.column);
      const explicitName = mapArgument(attribute);
      if (attribute.name === "id") table.primaryKey = { name: explicitName ?? primaryKeyName(name), columns };
      if (attribute.name === "unique") table.indexes.push(index(explicitName ?? uniqueIndexName(name, plain), columns, true));
      if (attribute.name === "index") {
        const method = argument(attribute, "type");
        const shape = index(explicitName ?? indexName(name, plain), columns, false);
        if (method?.kind === "constant") shape.method = method.name.toLowerCase();
        table.indexes.push(shape);
      }
    }
    return table;
  }

  private foreignKey(table: string, block: BlockDeclaration, field: FieldDeclaration): ForeignKeyShape | null {
    const relation = findAttribute(field.attributes, "relation");
    const fields = relation && argument(relation, "fields");
    const references = relation && argument(relation, "references");
    if (!this.foreignKeysEnforced || !relation || !fields || !references) return null;
    const localFields = fieldNames(fields).map((name) => this.field(block, name));
    const columns = localFields.map((local) => this.columnName(block.name, local.name));
    const optional = localFields.some((local) => local.optional);
    return {
      name: mapArgument(relation) ?? foreignKeyName(table, columns),
      columns,
      referencedTable: this.tableName(field.type),
      referencedColumns: fieldNames(references).map((name) => this.columnName(field.type, name)),
      onDelete: action(argument(relation, "onDelete")) ?? (optional ? "SetNull" : "Restrict"),
      onUpdate: action(argument(relation, "onUpdate")) ?? "Cascade",
    };
  }

  private columnType(field: FieldDeclaration, kind: string): string | null {
    const suffix = field.list ? "[]" : "";
    if (kind === "enum") return `${this.enumNames.get(field.type) ?? field.type}${suffix}`;
    const native = field.attributes.find((attribute) => attribute.name.startsWith("db."));
    const base = native ? nativeTypeName(native) : scalarTypeName(field.type);
    return base === null ? null : `${base}${suffix}`;
  }

  /** Key columns of an @@id/@@unique/@@index, in order, with their sort direction. */
  private indexKeys(modelName: string, attribute: Attribute): { column: string; descending: boolean }[] {
    const fields = argument(attribute, "fields") ?? argument(attribute);
    if (fields?.kind !== "array") throw new Error(`@@${attribute.name} on ${modelName} has no field list`);
    return fields.items.map((item) => {
      const [fieldName = ""] = fieldNames({ kind: "array", items: [item] });
      const sort = item.kind === "call" ? argument(item, "sort") : undefined;
      return {
        column: this.columnName(modelName, fieldName),
        descending: sort?.kind === "constant" && sort.name === "Desc",
      };
    });
  }

  private columnName(modelName: string, fieldName: string): string {
    const runtimeField = this.model.runtimeDataModel.models[modelName]?.fields.find((field) => field.name === fieldName);
    if (!runtimeField) throw new Error(`Field ${modelName}.${fieldName} is not in the generated client's data model`);
    return runtimeField.dbName ?? fieldName;
  }

  private tableName(modelName: string): string {
    const runtimeModel = this.model.runtimeDataModel.models[modelName];
    if (!runtimeModel) throw new Error(`Model ${modelName} is not in the generated client's data model`);
    return runtimeModel.dbName ?? modelName;
  }

  private block(modelName: string): BlockDeclaration {
    const block = this.models.get(modelName);
    if (!block) throw new Error(`Model ${modelName} is missing from the generated client's inline schema`);
    return block;
  }

  private field(block: BlockDeclaration, name: string): FieldDeclaration {
    const field = block.fields.find((candidate) => candidate.name === name);
    if (!field) throw new Error(`Field ${block.name}.${name} is missing from the generated client's inline schema`);
    return field;
  }
}

function hasDatabaseDefault(field: FieldDeclaration): boolean {
  const value = findAttribute(field.attributes, "default")?.args[0]?.value;
  if (!value) return false;
  return !(value.kind === "call" && CLIENT_SIDE_DEFAULTS.has(value.name));
}

function index(name: string, columns: string[], unique: boolean): IndexShape {
  return { name, columns, unique, method: "btree" };
}

function mapArgument(attribute: Attribute): string | undefined {
  const value = argument(attribute, "map");
  return value?.kind === "string" ? value.value : undefined;
}

function mappedName(attributes: Attribute[], name: string): string {
  const map = findAttribute(attributes, "map");
  const value = map && argument(map);
  return value?.kind === "string" ? value.value : name;
}

/** Field names in `[a, b(sort: Desc)]`. */
function fieldNames(value: AttributeValue): string[] {
  if (value.kind !== "array") throw new Error("Expected a list of fields");
  return value.items.map((item) => {
    if (item.kind === "constant" || item.kind === "call") return item.name;
    throw new Error("Expected a field name");
  });
}

function action(value: AttributeValue | undefined): ReferentialAction | undefined {
  if (value?.kind !== "constant") return undefined;
  const known: ReferentialAction[] = ["Cascade", "Restrict", "NoAction", "SetNull", "SetDefault"];
  const found = known.find((candidate) => candidate === value.name);
  if (!found) throw new Error(`Unknown referential action ${value.name}`);
  return found;
}
