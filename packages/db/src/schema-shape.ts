/**
 * The parts of a PostgreSQL schema that drift detection compares, in PostgreSQL's own spelling
 * (`format_type` type names, database names of tables and columns). Both the models' expectation
 * and the migrated database's catalog are reduced to this shape, then diffed.
 */
export interface SchemaShape {
  tables: Map<string, TableShape>;
  /** Enum type name -> labels. */
  enums: Map<string, string[]>;
}

export interface TableShape {
  name: string;
  /** Where an expected table comes from, e.g. `model OutboxEvent`; absent for the catalog. */
  source?: string;
  columns: Map<string, ColumnShape>;
  primaryKey: ConstraintShape | null;
  /** Unique and non-unique indexes, unique constraints included (PostgreSQL backs them by one). */
  indexes: IndexShape[];
  foreignKeys: ForeignKeyShape[];
}

export interface ColumnShape {
  name: string;
  source?: string;
  /** e.g. `timestamp(3) with time zone`, `text[]`; enum columns use the enum's name. `null` = not checked. */
  type: string | null;
  nullable: boolean;
  hasDefault: boolean;
}

export interface ConstraintShape {
  name: string;
  /** Column names in key order; a descending column is written `name DESC`. */
  columns: string[];
}

export interface IndexShape extends ConstraintShape {
  unique: boolean;
  /** Access method, e.g. `btree`. */
  method: string;
  /** Partial or expression indexes cannot come from a model; they are reported as such. */
  special?: "partial" | "expression";
}

export type ReferentialAction = "Cascade" | "Restrict" | "NoAction" | "SetNull" | "SetDefault";

export interface ForeignKeyShape extends ConstraintShape {
  referencedTable: string;
  referencedColumns: string[];
  onDelete: ReferentialAction;
  onUpdate: ReferentialAction;
}
