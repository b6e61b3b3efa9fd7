/**
 * What the soak samples at its start and at the end of each window: each process's resident memory
 * (Linux's /proc, as the bench reads it) and V8 heap and retention gauges (its /metrics), every
 * table's rows and size, and each consumer group's lag.
 */
import { Kafka, logLevel } from "kafkajs";
import pg from "pg";
import { sample as procSample } from "../load/proc";

export interface ProcessSample {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  /** The heap it kept at its last major collection (nodejs_heap_used_after_major_gc_bytes); NaN before its first. */
  readonly heapAfterGcBytes: number;
  /** retention_oldest_row_age_seconds, retention_period_seconds and retention_deleted_rows_total, by table. */
  readonly retention: Readonly<Record<string, RetentionSample>>;
}

export interface RetentionSample {
  readonly oldestAgeSeconds: number;
  readonly periodSeconds: number;
  /** Rows this process's retention job deleted since it started. */
  readonly deletedRows: number;
}

export interface TableSample {
  readonly rows: number;
  readonly bytes: number;
}

export interface Sample {
  /** Seconds since the load started. */
  readonly second: number;
  /** By process name; a process that is gone is missing. */
  readonly processes: Readonly<Record<string, ProcessSample>>;
  /** By `<database service>.<table>`. */
  readonly tables: Readonly<Record<string, TableSample>>;
  /** Messages not yet consumed, by consumer group. */
  readonly lag: Readonly<Record<string, number>>;
}

export interface SampledProcess {
  readonly name: string;
  readonly pid: number | undefined;
  readonly metricsUrl: string;
}

/** One value of a Prometheus text exposition, by metric name and optional `table` label. */
function metricValues(text: string, name: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^(\w+)(?:\{([^}]*)\})?\s+(\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const table = /table="([^"]*)"/.exec(match[2] ?? "")?.[1] ?? "";
    values.set(table, Number(match[3]));
  }
  return values;
}

async function sampleProcess(p: SampledProcess): Promise<ProcessSample | undefined> {
  const proc = p.pid === undefined ? undefined : procSample(p.pid);
  if (!proc) return undefined;
  const text = await fetch(`${p.metricsUrl}/metrics`, { signal: AbortSignal.timeout(5000) }).then((res) => res.text(), () => "");
  const ages = metricValues(text, "retention_oldest_row_age_seconds");
  const periods = metricValues(text, "retention_period_seconds");
  const deleted = metricValues(text, "retention_deleted_rows_total");
  const retention = Object.fromEntries([...periods].map(([table, periodSeconds]) => [table, { oldestAgeSeconds: ages.get(table) ?? 0, periodSeconds, deletedRows: deleted.get(table) ?? 0 }]));
  return {
    rssBytes: proc.rssBytes,
    heapUsedBytes: metricValues(text, "nodejs_heap_size_used_bytes").get("") ?? Number.NaN,
    heapAfterGcBytes: metricValues(text, "nodejs_heap_used_after_major_gc_bytes").get("") ?? Number.NaN,
    retention,
  };
}

/** Exact row counts (the tables stay small enough) and total relation sizes of every table but Prisma's own. */
async function sampleTables(databaseUrls: Readonly<Record<string, string>>): Promise<Record<string, TableSample>> {
  const tables: Record<string, TableSample> = {};
  for (const [service, url] of Object.entries(databaseUrls)) {
    const db = new pg.Client({ connectionString: url, application_name: "soak" });
    await db.connect();
    try {
      const { rows } = await db.query<{ name: string; bytes: string }>(`SELECT relname AS name, pg_total_relation_size(relid) AS bytes FROM pg_stat_user_tables WHERE relname <> '_prisma_migrations' ORDER BY relname`);
      for (const { name, bytes } of rows) {
        const counted = await db.query<{ n: string }>(`SELECT count(*) AS n FROM "${name}"`);
        tables[`${service}.${name}`] = { rows: Number(counted.rows[0]!.n), bytes: Number(bytes) };
      }
    } finally {
      await db.end();
    }
  }
  return tables;
}

/** Each consumer group's lag: the end offset of each partition it committed on, less its committed offset. */
export async function consumerLag(brokers: readonly string[]): Promise<Record<string, number>> {
  const admin = new Kafka({ clientId: "soak", brokers: [...brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const lag: Record<string, number> = {};
    const ends = new Map<string, Map<number, number>>();
    const endOf = async (topic: string, partition: number) => {
      if (!ends.has(topic)) ends.set(topic, new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, Number(o.high)])));
      return ends.get(topic)!.get(partition) ?? 0;
    };
    for (const { groupId } of (await admin.listGroups()).groups) {
      let behind = 0;
      for (const { topic, partitions } of await admin.fetchOffsets({ groupId })) {
        for (const { partition, offset } of partitions) if (Number(offset) >= 0) behind += Math.max(0, (await endOf(topic, partition)) - Number(offset));
      }
      lag[groupId] = behind;
    }
    return lag;
  } finally {
    await admin.disconnect();
  }
}

export async function takeSample(second: number, processes: readonly SampledProcess[], databaseUrls: Readonly<Record<string, string>>, brokers: readonly string[]): Promise<Sample> {
  const sampled = await Promise.all(processes.map(async (p) => [p.name, await sampleProcess(p)] as const));
  return {
    second,
    processes: Object.fromEntries(sampled.filter((entry): entry is readonly [string, ProcessSample] => entry[1] !== undefined)),
    tables: await sampleTables(databaseUrls),
    lag: await consumerLag(brokers),
  };
}
