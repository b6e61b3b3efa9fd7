import type pg from "pg";

/**
 * Prisma's migration history table, created with the exact DDL of Prisma's PostgreSQL schema
 * engine (copied from the engine shipped in prisma 7.10), so `prisma migrate deploy/status/
 * resolve` can take over a database this runner migrated, and the other way round.
 */
const createTableSql = (qualifiedName: string): string => `CREATE TABLE ${qualifiedName} (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationRow {
  id: string;
  checksum: string;
  migrationName: string;
  startedAt: Date;
  finishedAt: Date | null;
  rolledBackAt: Date | null;
  logs: string | null;
}

/**
 * The history table of the connection's current schema. Every statement names it fully
 * qualified, so a migration that changes search_path cannot make the runner record its result
 * somewhere else.
 */
export class MigrationsTable {
  private constructor(
    private readonly client: pg.Client,
    private readonly schema: string,
    private readonly qualifiedName: string,
  ) {}

  static async forCurrentSchema(client: pg.Client): Promise<MigrationsTable> {
    const result = await client.query<{ schema: string | null }>("SELECT current_schema() AS schema");
    const schema = result.rows[0]?.schema;
    if (!schema) throw new Error("The connection has no current schema (empty search_path)");
    return new MigrationsTable(client, schema, `${client.escapeIdentifier(schema)}._prisma_migrations`);
  }

  /** Names of the schema's tables, the history table included if it exists. */
  async tableNames(): Promise<string[]> {
    const result = await this.client.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY tablename",
      [this.schema],
    );
    return result.rows.map((row) => row.name);
  }

  async create(): Promise<void> {
    await this.client.query(createTableSql(this.qualifiedName));
  }

  async rows(): Promise<MigrationRow[]> {
    const result = await this.client.query<{
      id: string;
      checksum: string;
      migration_name: string;
      started_at: Date;
      finished_at: Date | null;
      rolled_back_at: Date | null;
      logs: string | null;
    }>(
      `SELECT id, checksum, migration_name, started_at, finished_at, rolled_back_at, logs
         FROM ${this.qualifiedName} ORDER BY started_at ASC`,
    );
    return result.rows.map((row) => ({
      id: row.id,
      checksum: row.checksum,
      migrationName: row.migration_name,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      rolledBackAt: row.rolled_back_at,
      logs: row.logs,
    }));
  }

  /** Same columns Prisma writes when it starts a migration. */
  async recordStarted(id: string, migrationName: string, checksum: string): Promise<void> {
    await this.client.query(
      `INSERT INTO ${this.qualifiedName} (id, checksum, started_at, migration_name)
       VALUES ($1, $2, clock_timestamp(), $3)`,
      [id, checksum, migrationName],
    );
  }

  /** Prisma counts one step per script and then stamps finished_at; both happen here at once. */
  async recordFinished(id: string): Promise<void> {
    await this.client.query(
      `UPDATE ${this.qualifiedName}
          SET applied_steps_count = applied_steps_count + 1, finished_at = clock_timestamp()
        WHERE id = $1`,
      [id],
    );
  }
}
