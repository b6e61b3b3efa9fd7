import { Gauge, type Registry } from "prom-client";
import type { RunInTransaction, SqlClient } from "./sql";

/** The metric deploy/base/alerts and the dashboard read as outbox lag. */
export const OUTBOX_LAG_METRIC = "outbox_oldest_unsent_age_seconds";

// The partial order (sent_at, seq) index finds unsent rows without reading the sent ones.
const OLDEST_UNSENT = `SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS age
  FROM outbox_event WHERE sent_at IS NULL`;

/**
 * Age of the oldest committed event not yet on the broker, read at scrape time: 0 when the relay
 * keeps up, growing while the broker is unreachable or the relay is stuck. A failed read reports
 * NaN (a gap on a graph, never a reassuring 0) instead of failing the whole scrape.
 */
export function registerOutboxLag<Tx extends SqlClient>(registry: Registry, runInTransaction: RunInTransaction<Tx>): void {
  new Gauge({
    name: OUTBOX_LAG_METRIC,
    help: "Seconds since the oldest outbox event still waiting to be published was committed (0 when none waits).",
    registers: [registry],
    async collect() {
      try {
        const rows = await runInTransaction(async (tx) => tx.$queryRawUnsafe<{ age: number }[]>(OLDEST_UNSENT));
        const row = rows[0];
        this.set(row?.age ?? 0);
      } catch {
        this.set(Number.NaN);
      }
    },
  });
}
