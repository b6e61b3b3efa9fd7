/**
 * What one table keeps and how its expired rows go. The job (retention-job.ts) runs every policy
 * with the same two statements, so a policy is only SQL:
 * - `deleteBatch` deletes at most $2 expired rows, $1 being the cutoff (a timestamptz: rows whose
 *   anchor is before it are expired), and must reach them through an index on the anchor so that
 *   a batch costs the same whatever the table holds;
 * - `oldest` returns one row `{ anchor }`: the earliest anchor among the rows the policy governs
 *   (null when none), read through the same index.
 * `anchorIsExpiry` says the anchor column holds when the row expires rather than when its period
 * started (idempotency records store `expires_at`): the cutoff is then "now", and the age of the
 * oldest row is measured from the start of its period all the same.
 */
export interface RetentionPolicy {
  /** The table's name, the `table` label of the metrics. */
  readonly table: string;
  readonly periodMs: number;
  readonly deleteBatch: string;
  readonly oldest: string;
  readonly anchorIsExpiry?: boolean;
  /**
   * Tables whose rows go with the policy's own (children deleted in the same statement, e.g. a
   * delivery's attempts). `deleteBatch` then returns one row: `deleted` (the policy table's rows,
   * which decides whether another batch follows) and a count column named after each of these.
   */
  readonly alsoDeletes?: readonly string[];
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The policy of a table whose rows expire by one timestamp column (an index on it is required),
 * optionally among the rows matching `where` (e.g. only sent outbox rows). Rows are picked by ctid
 * with SKIP LOCKED: a batch never waits for a row a writer holds, and deletes by tuple address
 * what it just found through the index (a TID scan), without a second index lookup.
 */
export function expiresByColumn(opts: { table: string; column: string; periodMs: number; where?: string; anchorIsExpiry?: boolean }): RetentionPolicy {
  const table = ident(opts.table);
  const column = ident(opts.column);
  const where = opts.where ? ` AND (${opts.where})` : "";
  return {
    table: opts.table,
    periodMs: opts.periodMs,
    ...(opts.anchorIsExpiry ? { anchorIsExpiry: true } : {}),
    deleteBatch: `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM ${table} WHERE ${column} < $1${where} ORDER BY ${column} LIMIT $2 FOR UPDATE SKIP LOCKED))`,
    oldest: `SELECT min(${column}) AS anchor FROM ${table} WHERE ${column} IS NOT NULL${where}`,
  };
}
