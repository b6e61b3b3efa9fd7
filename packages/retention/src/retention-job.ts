import type { Logger } from "@tawsil/logging";
import pg from "pg";
import type { Registry } from "prom-client";
import type { RetentionPolicy } from "./policy";
import { registerRetentionMetrics, type RetentionMetrics } from "./retention-metrics";

/**
 * Session advisory lock key of the retention job, the same in every service's database (each has
 * its own database, so replicas of one service share it and nothing else does). Beside dispatch's
 * leader locks (0x7a777310, 0x7a777311) and the outbox relay's (0x7a777301).
 */
export const RETENTION_LOCK_KEY = 0x7a_77_73_20;

export interface RetentionJobOptions {
  /** The service's database: the job holds its lock on a session of its own (never the pool's). */
  readonly databaseUrl: string;
  readonly policies: readonly RetentionPolicy[];
  /** Most rows one statement deletes: bounds each statement's locks and duration. */
  readonly batchSize: number;
  readonly clock: () => Date;
  readonly logger: Logger;
  /** Where the per-table metrics go (the process's /metrics); optional for tools. */
  readonly registry?: Registry;
  /** How long one batch may wait for a lock before the run gives up until the next one. */
  readonly lockTimeoutMs?: number;
}

export interface TableRun {
  readonly table: string;
  readonly deleted: number;
  readonly batches: number;
  /** Seconds since the oldest remaining row's period started; 0 when none remains. */
  readonly oldestAgeSeconds: number;
}

/** What one run did: `deleted` false when another replica held the lock (it then only measured). */
export interface RetentionRun {
  readonly deleted: boolean;
  readonly tables: readonly TableRun[];
}

/**
 * Deletes what is past its retention period, table by table, in batches of `batchSize` rows, one
 * statement each (its own short transaction: no lock outlives a batch), until a batch deletes fewer
 * than its size. Only the replica holding the session advisory lock deletes, so two replicas behave
 * like one; every replica measures the age of each table's oldest row (one index probe a table), so
 * the gauge is fresh on whichever pod Prometheus scrapes. A run costs a constant few statements when
 * nothing expired.
 */
export class RetentionJob {
  readonly #metrics: RetentionMetrics | undefined;

  constructor(private readonly opts: RetentionJobOptions) {
    this.#metrics = opts.registry ? registerRetentionMetrics(opts.registry) : undefined;
    // Every table's counter exists from the start (at 0), so rate() sees its first deletion.
    for (const policy of opts.policies) {
      this.#metrics?.period.set({ table: policy.table }, policy.periodMs / 1000);
      for (const table of [policy.table, ...(policy.alsoDeletes ?? [])]) this.#metrics?.deleted.inc({ table }, 0);
    }
  }

  async run(): Promise<RetentionRun> {
    const client = new pg.Client({ connectionString: this.opts.databaseUrl, application_name: "retention" });
    // A session that dies between statements fails the statement in flight, not the process.
    client.on("error", (err) => this.opts.logger.warn({ err }, "retention session failed"));
    await client.connect();
    try {
      await client.query(`SELECT set_config('lock_timeout', $1, false)`, [`${this.opts.lockTimeoutMs ?? 1000}ms`]);
      const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [RETENTION_LOCK_KEY]);
      const locked = rows[0]?.locked === true;
      try {
        const tables: TableRun[] = [];
        for (const policy of this.opts.policies) tables.push(await this.#table(client, policy, locked));
        return { deleted: locked, tables };
      } finally {
        if (locked) await client.query("SELECT pg_advisory_unlock($1)", [RETENTION_LOCK_KEY]).catch(() => undefined);
      }
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async #table(client: pg.Client, policy: RetentionPolicy, deleting: boolean): Promise<TableRun> {
    const now = this.opts.clock().getTime();
    let deleted = 0;
    let batches = 0;
    if (deleting) {
      const cutoff = new Date(policy.anchorIsExpiry ? now : now - policy.periodMs);
      for (;;) {
        const result = await client.query<Record<string, string | number>>(policy.deleteBatch, [cutoff, this.opts.batchSize]);
        const counts = policy.alsoDeletes ? result.rows[0] ?? {} : { deleted: result.rowCount ?? 0 };
        const count = Number(counts.deleted ?? 0);
        batches++;
        deleted += count;
        if (count > 0) this.#metrics?.deleted.inc({ table: policy.table }, count);
        for (const table of policy.alsoDeletes ?? []) {
          const children = Number(counts[table] ?? 0);
          if (children > 0) this.#metrics?.deleted.inc({ table }, children);
        }
        if (count < this.opts.batchSize) break;
      }
      if (deleted > 0) this.opts.logger.info({ table: policy.table, deleted, batches }, "retention deleted expired rows");
    }
    const { rows } = await client.query<{ anchor: Date | null }>(policy.oldest);
    const anchor = rows[0]?.anchor;
    const oldestAgeSeconds = anchor ? Math.max(0, (now - anchor.getTime() + (policy.anchorIsExpiry ? policy.periodMs : 0)) / 1000) : 0;
    this.#metrics?.oldestAge.set({ table: policy.table }, oldestAgeSeconds);
    return { table: policy.table, deleted, batches, oldestAgeSeconds };
  }
}

/** A service's retention settings, as retentionEnv of @tawsil/config and databaseEnv parse them. */
export interface RetentionSettings {
  readonly DATABASE_URL: string;
  readonly RETENTION_INTERVAL_MS: number;
  readonly RETENTION_BATCH_SIZE: number;
}

/**
 * A service's RetentionJob, run every RETENTION_INTERVAL_MS, first right after start so the gauges
 * are filled. A failed run (the database away, a lock it would not wait for) is logged and the
 * next tick tries again; runs never overlap. The closer waits for the run in flight.
 */
export function startRetention(
  settings: RetentionSettings,
  opts: { policies: readonly RetentionPolicy[]; logger: Logger; registry: Registry; clock?: () => Date },
): { name: string; job: RetentionJob; close(): Promise<void> } {
  const logger = opts.logger.child({ component: "retention" });
  const job = new RetentionJob({
    databaseUrl: settings.DATABASE_URL,
    batchSize: settings.RETENTION_BATCH_SIZE,
    policies: opts.policies,
    clock: opts.clock ?? (() => new Date()),
    logger,
    registry: opts.registry,
  });
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = job
      .run()
      .then(() => undefined)
      .catch((err: unknown) => logger.warn({ err }, "retention run failed; the next one retries"))
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(tick, 0);
  const timer = setInterval(tick, settings.RETENTION_INTERVAL_MS);
  first.unref();
  timer.unref();
  return {
    name: "retention",
    job,
    async close() {
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
