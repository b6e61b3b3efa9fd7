import type { ColumnShape, ForeignKeyShape, IndexShape, SchemaShape, TableShape } from "./schema-shape";

/**
 * Every difference between what the models expect and what the database has, one sentence each,
 * sorted so output is stable; empty means no drift. Names of keys and indexes count too: Prisma
 * would generate a migration to rename them, so a mismatch means the migrations and the schema
 * would not produce the same database.
 */
export function compareSchemas(expected: SchemaShape, actual: SchemaShape): string[] {
  const differences: string[] = [];
  for (const [name, table] of expected.tables) {
    const found = actual.tables.get(name);
    if (found) differences.push(...compareTables(table, found));
    else differences.push(`table "${name}" (${table.source ?? "model"}) is missing from the database`);
  }
  for (const name of actual.tables.keys()) {
    if (!expected.tables.has(name)) differences.push(`table "${name}" exists in the database but no model maps to it`);
  }
  for (const [name, labels] of expected.enums) {
    const found = actual.enums.get(name);
    if (!found) differences.push(`enum "${name}" is missing from the database`);
    else if (!sameMembers(labels, found)) differences.push(`enum "${name}" has values (${found.join(", ")}), the schema declares (${labels.join(", ")})`);
  }
  for (const name of actual.enums.keys()) {
    if (!expected.enums.has(name)) differences.push(`enum "${name}" exists in the database but not in the schema`);
  }
  return differences.sort();
}

function compareTables(expected: TableShape, actual: TableShape): string[] {
  const differences: string[] = [];
  const at = (column: string) => `column "${expected.name}"."${column}"`;
  for (const [name, column] of expected.columns) {
    const found = actual.columns.get(name);
    if (!found) differences.push(`${at(name)} (${column.source ?? "field"}) is missing from the database`);
    else differences.push(...compareColumns(at(name), column, found));
  }
  for (const name of actual.columns.keys()) {
    if (!expected.columns.has(name)) differences.push(`${at(name)} exists in the database but no field maps to it`);
  }

  const table = `table "${expected.name}"`;
  const expectedKey = expected.primaryKey ? describeKey(expected.primaryKey) : "none";
  const actualKey = actual.primaryKey ? describeKey(actual.primaryKey) : "none";
  if (expectedKey !== actualKey) differences.push(`${table} has primary key ${actualKey}, the model declares ${expectedKey}`);

  differences.push(
    ...compareSets(table, "index", expected.indexes, actual.indexes, describeIndex),
    ...compareSets(table, "foreign key", expected.foreignKeys, actual.foreignKeys, describeForeignKey),
  );
  return differences;
}

function compareColumns(at: string, expected: ColumnShape, actual: ColumnShape): string[] {
  const differences: string[] = [];
  if (expected.type !== null && expected.type !== actual.type) {
    differences.push(`${at} has type ${actual.type}, ${expected.source ?? "the model"} expects ${expected.type}`);
  }
  if (expected.nullable !== actual.nullable) {
    differences.push(`${at} is ${actual.nullable ? "nullable" : "NOT NULL"}, ${expected.source ?? "the model"} expects ${expected.nullable ? "nullable" : "NOT NULL"}`);
  }
  if (expected.hasDefault !== actual.hasDefault) {
    differences.push(`${at} ${actual.hasDefault ? "has a" : "has no"} default, ${expected.source ?? "the model"} expects ${expected.hasDefault ? "one" : "none"}`);
  }
  return differences;
}

/** Indexes and foreign keys match when their whole description (name included) matches. */
function compareSets<T>(table: string, noun: string, expected: T[], actual: T[], describe: (item: T) => string): string[] {
  const expectedSet = new Set(expected.map(describe));
  const actualSet = new Set(actual.map(describe));
  return [
    ...[...expectedSet].filter((item) => !actualSet.has(item)).map((item) => `${table} is missing ${noun} ${item}`),
    ...[...actualSet].filter((item) => !expectedSet.has(item)).map((item) => `${table} has ${noun} ${item} that the model does not declare`),
  ];
}

function describeKey(key: { name: string; columns: string[] }): string {
  return `"${key.name}" (${key.columns.join(", ")})`;
}

function describeIndex(index: IndexShape): string {
  const kind = index.special ? `${index.special} ` : "";
  return `${kind}${index.unique ? "unique " : ""}${index.method} ${describeKey(index)}`;
}

function describeForeignKey(key: ForeignKeyShape): string {
  return `${describeKey(key)} -> "${key.referencedTable}" (${key.referencedColumns.join(", ")}) on delete ${key.onDelete} on update ${key.onUpdate}`;
}

function sameMembers(left: string[], right: string[]): boolean {
  return left.length === right.length && left.every((item) => right.includes(item));
}
