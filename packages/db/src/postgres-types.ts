/**
 * Column types as PostgreSQL's `format_type()` spells them, for what Prisma's migrations create:
 * the default type of each Prisma scalar, or the type an `@db.*` attribute names.
 */
const SCALAR_DEFAULTS: Record<string, string> = {
  String: "text",
  Boolean: "boolean",
  Int: "integer",
  BigInt: "bigint",
  Float: "double precision",
  Decimal: "numeric(65,30)",
  DateTime: "timestamp(3) without time zone",
  Json: "jsonb",
  Bytes: "bytea",
};

/** Omitted arguments give PostgreSQL's own default, as Prisma then writes the bare type name. */
const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Text: () => "text",
  Char: ([length = "1"]) => `character(${length})`,
  VarChar: ([length]) => withArgs("character varying", length),
  Bit: ([length = "1"]) => `bit(${length})`,
  VarBit: ([length]) => withArgs("bit varying", length),
  Uuid: () => "uuid",
  Xml: () => "xml",
  Inet: () => "inet",
  Citext: () => "citext",
  Boolean: () => "boolean",
  Integer: () => "integer",
  SmallInt: () => "smallint",
  BigInt: () => "bigint",
  Oid: () => "oid",
  Real: () => "real",
  DoublePrecision: () => "double precision",
  Decimal: ([precision, scale = "0"]) => (precision === undefined ? "numeric" : `numeric(${precision},${scale})`),
  Money: () => "money",
  Date: () => "date",
  Timestamp: ([precision]) => `${withArgs("timestamp", precision)} without time zone`,
  Timestamptz: ([precision]) => `${withArgs("timestamp", precision)} with time zone`,
  Time: ([precision]) => `${withArgs("time", precision)} without time zone`,
  Timetz: ([precision]) => `${withArgs("time", precision)} with time zone`,
  Json: () => "json",
  JsonB: () => "jsonb",
  ByteA: () => "bytea",
};

/** `null` for `Unsupported("...")` and other types whose column type is not checked. */
export function scalarTypeName(prismaType: string): string | null {
  return SCALAR_DEFAULTS[prismaType] ?? null;
}

/** A native type as the DMMF gives it: `["VarChar", ["200"]]` for `@db.VarChar(200)`. */
export function nativeTypeName(name: string, args: readonly string[]): string {
  const render = NATIVE_TYPES[name];
  if (!render) throw new Error(`Unknown PostgreSQL native type @db.${name}`);
  return render([...args]);
}

function withArgs(name: string, arg: string | undefined): string {
  return arg === undefined ? name : `${name}(${arg})`;
}
