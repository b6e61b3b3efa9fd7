/**
 * Whether a checkout's databases can be opened with its local secrets (.dev/secrets.env): the
 * merchant's signing keys and the webhook secrets are stored encrypted with them. Each database
 * carries a fingerprint of the secrets in its PostgreSQL comment (COMMENT ON DATABASE: no table,
 * so the services' schemas and their drift checks are untouched; a dump taken with --create keeps
 * it, so a restored database is recognised too). `make dev` compares before starting anything.
 */
import { createHash } from "node:crypto";
import pg from "pg";

const MARKER = "tawsil-dev-secrets";

/** `NAME:hash` per secret: shows which secret differs without revealing any. */
export function secretsFingerprint(secrets: Readonly<Record<string, string>>): string {
  const parts = Object.keys(secrets)
    .sort()
    .map((name) => `${name}:${createHash("sha256").update(secrets[name]!).digest("hex").slice(0, 16)}`);
  return `${MARKER} ${parts.join(" ")}`;
}

/**
 * The secrets whose fingerprint in `comment` differs from `secrets`. A secret missing on either
 * side is no mismatch (one added since the database was marked); a comment that is not our
 * marker says nothing either (a database from before the markers).
 */
export function mismatchedSecrets(comment: string | null | undefined, secrets: Readonly<Record<string, string>>): string[] {
  if (!comment?.startsWith(`${MARKER} `)) return [];
  const marked = new Map(
    comment
      .slice(MARKER.length + 1)
      .split(" ")
      .map((part) => [part.slice(0, part.indexOf(":")), part] as const),
  );
  const current = new Map(
    secretsFingerprint(secrets)
      .slice(MARKER.length + 1)
      .split(" ")
      .map((part) => [part.slice(0, part.indexOf(":")), part] as const),
  );
  return [...current].filter(([name, part]) => marked.has(name) && marked.get(name) !== part).map(([name]) => name);
}

/** The given databases that exist, with their comments. */
export async function existingDatabases(adminUrl: string, names: readonly string[]): Promise<{ name: string; comment: string | null }[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; comment: string | null }>(
      "SELECT datname AS name, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = ANY($1) ORDER BY datname",
      [names],
    );
    return rows;
  } finally {
    await client.end();
  }
}

/** Marks the databases as sealed with these secrets. */
export async function markDatabases(adminUrl: string, names: readonly string[], secrets: Readonly<Record<string, string>>): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const name of names) {
      await client.query(`COMMENT ON DATABASE ${pg.escapeIdentifier(name)} IS ${pg.escapeLiteral(secretsFingerprint(secrets))}`);
    }
  } finally {
    await client.end();
  }
}
