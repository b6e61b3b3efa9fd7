/**
 * Starts the design floor's processes, each on a free port: the edge (edge.ts) calling the inner
 * service (inner.ts), whose creates publish to a topic of their own that consumers.ts applies.
 */
import pg from "pg";
import { ensureTopics } from "../../../packages/testing/src/infra/kafka";
import { startChild, type Child } from "../setup";
import { FLOOR_GROUPS, FLOOR_PARTITIONS, FLOOR_TOPIC } from "./events";

export interface Floor {
  readonly edge: Child;
  readonly inner: Child;
  readonly consumers: Child;
  /** Resolves once every group has applied every create so far, or after `maxMs`. */
  caughtUp(maxMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startFloor(opts: { databaseUrl: string; merchantId: string; brokers: readonly string[]; logDir: string }): Promise<Floor> {
  await ensureTopics([...opts.brokers], [{ topic: FLOOR_TOPIC, numPartitions: FLOOR_PARTITIONS }]);
  const kafka = { KAFKA_BROKERS: opts.brokers.join(","), DATABASE_URL: opts.databaseUrl };
  const started: Child[] = [];
  try {
    const inner = await startChild("floor-inner", "scripts/bench/floor/inner.ts", kafka, opts.logDir);
    started.push(inner);
    const consumers = await startChild("floor-consumers", "scripts/bench/floor/consumers.ts", kafka, opts.logDir);
    started.push(consumers);
    const edge = await startChild("floor-edge", "scripts/bench/floor/edge.ts", { INNER_URL: inner.url, MERCHANT_ID: opts.merchantId }, opts.logDir);
    started.push(edge);
    return { edge, inner, consumers, caughtUp: (maxMs) => caughtUp(opts.databaseUrl, maxMs), stop: () => Promise.all(started.map((c) => c.stop())).then(() => {}) };
  } catch (err) {
    await Promise.all(started.map((c) => c.stop()));
    throw err;
  }
}

async function caughtUp(databaseUrl: string, maxMs = 10_000): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + maxMs;
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ behind: string }>("SELECT (SELECT count(*) FROM floor_shipment) * $1 - (SELECT count(*) FROM floor_applied) AS behind", [FLOOR_GROUPS.length]);
      if (Number(rows[0]?.behind) <= 0) return;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await client.end();
  }
}
