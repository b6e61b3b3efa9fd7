import type pg from "pg";
import type { ReferentialAction, SchemaShape, TableShape } from "./schema-shape";

/** pg_constraint's one-letter referential actions. */
const ACTIONS: Record<string, ReferentialAction> = { a: "NoAction", r: "Restrict", c: "Cascade", n: "SetNull", d: "SetDefault" };

/** Rows of Prisma's own bookkeeping, not part of any model. */
const MIGRATIONS_TABLE = "_prisma_migrations";

/**
 * Reads the tables of the connection's current schema from the PostgreSQL catalog (not
 * information_schema, which hides index order, sort direction and access method).
 */
export async function readDatabaseSchema(client: pg.Client): Promise<SchemaShape> {
  const tables = new Map<string, TableShape>();
  const table = (name: string): TableShape => {
    let shape = tables.get(name);
    if (!shape) {
      shape = { name, columns: new Map(), primaryKey: null, indexes: [], foreignKeys: [] };
      tables.set(name, shape);
    }
    return shape;
  };

  const columns = await client.query<{ table: string; name: string; type: string; not_null: boolean; has_default: boolean }>(
    `SELECT c.relname AS table, a.attname AS name,
            CASE WHEN t.typtype = 'e' THEN t.typname::text
                 WHEN e.typtype = 'e' THEN e.typname || '[]'
                 ELSE format_type(a.atttypid, a.atttypmod) END AS type,
            a.attnotnull AS not_null,
            (a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '') AS has_default
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_type t ON t.oid = a.atttypid
       LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A'
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
        AND c.relname <> $1 AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.relname, a.attnum`,
    [MIGRATIONS_TABLE],
  );
  for (const row of columns.rows) {
    table(row.table).columns.set(row.name, { name: row.name, type: row.type, nullable: !row.not_null, hasDefault: row.has_default });
  }

  const indexes = await client.query<{
    table: string; name: string; primary: boolean; unique: boolean; method: string; partial: boolean; expression: boolean; columns: string[];
  }>(
    `SELECT c.relname AS table, i.relname AS name, x.indisprimary AS primary, x.indisunique AS unique,
            am.amname AS method, x.indpred IS NOT NULL AS partial, x.indexprs IS NOT NULL AS expression,
            ARRAY(SELECT a.attname || CASE WHEN x.indoption[(k.ord - 1)::int] & 1 = 1 THEN ' DESC' ELSE '' END
                    FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
                   WHERE k.ord <= x.indnkeyatts ORDER BY k.ord)::text[] AS columns
       FROM pg_index x
       JOIN pg_class c ON c.oid = x.indrelid
       JOIN pg_class i ON i.oid = x.indexrelid
       JOIN pg_am am ON am.oid = i.relam
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relname <> $1
      ORDER BY c.relname, i.relname`,
    [MIGRATIONS_TABLE],
  );
  for (const row of indexes.rows) {
    const shape = table(row.table);
    if (row.primary) {
      shape.primaryKey = { name: row.name, columns: row.columns };
      continue;
    }
    const special = row.partial ? "partial" : row.expression ? "expression" : undefined;
    shape.indexes.push({ name: row.name, columns: row.columns, unique: row.unique, method: row.method, ...(special ? { special } : {}) });
  }

  const foreignKeys = await client.query<{
    table: string; name: string; referenced_table: string; columns: string[]; referenced_columns: string[]; on_delete: string; on_update: string;
  }>(
    `SELECT c.relname AS table, con.conname AS name, r.relname AS referenced_table,
            ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS columns,
            ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord)::text[] AS referenced_columns,
            con.confdeltype::text AS on_delete, con.confupdtype::text AS on_update
       FROM pg_constraint con
       JOIN pg_class c ON c.oid = con.conrelid
       JOIN pg_class r ON r.oid = con.confrelid
      WHERE con.contype = 'f' AND c.relnamespace = current_schema()::regnamespace
      ORDER BY c.relname, con.conname`,
  );
  for (const row of foreignKeys.rows) {
    table(row.table).foreignKeys.push({
      name: row.name,
      columns: row.columns,
      referencedTable: row.referenced_table,
      referencedColumns: row.referenced_columns,
      onDelete: ACTIONS[row.on_delete] ?? "NoAction",
      onUpdate: ACTIONS[row.on_update] ?? "NoAction",
    });
  }

  const enums = await client.query<{ name: string; labels: string[] }>(
    `SELECT t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS labels
       FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
      WHERE t.typnamespace = current_schema()::regnamespace
      GROUP BY t.typname`,
  );
  return { tables, enums: new Map(enums.rows.map((row) => [row.name, row.labels])) };
}
