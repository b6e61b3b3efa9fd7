/**
 * Prisma's default constraint and index names for PostgreSQL (prisma-engines
 * psl-core/src/datamodel_connector/constraint_names.rs): `{table}_pkey`,
 * `{table}_{columns}_key` (unique), `{table}_{columns}_idx`, `{table}_{columns}_fkey`, built from
 * database names and cut to PostgreSQL's 63-byte identifier limit before the suffix.
 */
const MAX_IDENTIFIER_BYTES = 63;

export function primaryKeyName(table: string): string {
  return withSuffix(table, "_pkey");
}

export function uniqueIndexName(table: string, columns: string[]): string {
  return withSuffix(`${table}_${columns.join("_")}`, "_key");
}

export function indexName(table: string, columns: string[]): string {
  return withSuffix(`${table}_${columns.join("_")}`, "_idx");
}

export function foreignKeyName(table: string, columns: string[]): string {
  return withSuffix(`${table}_${columns.join("_")}`, "_fkey");
}

function withSuffix(base: string, suffix: string): string {
  return truncateBytes(base, MAX_IDENTIFIER_BYTES - suffix.length) + suffix;
}

/** Longest prefix of `text` of at most `maxBytes` UTF-8 bytes that does not split a character. */
function truncateBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char, "utf8");
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}
