/**
 * Tracking freshness (decisions.md section 9: a projection trails the authoritative read by at
 * most 2 s, p99 <= 1 s, while the mesh is healthy). Creates at a fixed rate and cancels every other
 * shipment as soon as its create answers, while one connection to the tracking service's own
 * database watches the projection (`tracked_shipment`) for each of them: the lag is from the
 * answer's arrival at the client (the change is committed by then, so the authoritative read shows
 * it) to the first poll that finds it. The figures are pooled over the rounds.
 */
import pg from "pg";
import { call, paced } from "../../../packages/testing/src/load/driver";
import { lagFigures, roundFigures, type LagFigures } from "../../../packages/testing/src/load/stats";
import { createEndpoint } from "./create";
import { authJson, type Scenario } from "./scenario";

/** How often the projection is read: the figures' resolution (a poll costs well under 1 ms). */
export const POLL_MS = 10;
/** A change not in the projection this long after its answer is counted as missed. */
export const DEADLINE_MS = 10_000;

interface Watched {
  readonly answeredAt: number;
  readonly state: string | null;
}

export const trackingFreshness: Scenario = {
  name: "tracking-freshness",
  title: "tracking freshness (create and cancel to projection)",
  target: { what: "create-to-projection p99", op: "<=", value: 1000, unit: " ms" },
  figure: (result) => result.lags?.find((l) => l.what.startsWith("create"))?.p99Ms ?? Number.NaN,
  async prepare(ctx) {
    if (!ctx.trackingDatabaseUrl) return { kind: "unavailable", reason: "the tracking service's database is not known to the bench" };
    const max = ctx.results.get("create")?.mesh?.median.throughput;
    const rate = max && max > 0 ? max / 2 : 10;
    const lags = { create: [] as number[], cancel: [] as number[], missed: { create: 0, cancel: 0 } };
    let cancelRefused = 0;
    // Shipment id -> when its change answered, and the state the projection must reach (null: any).
    const pending = new Map<string, Watched>();
    const cancels: Promise<void>[] = [];
    let created = 0;
    // One endpoint for every round: its references go on counting, so no create is a replay.
    const endpoint = {
      ...createEndpoint(ctx, ctx.gateway, "f"),
      onResponse: (body: string) => {
        const id = (JSON.parse(body) as { id?: unknown }).id;
        if (typeof id !== "string") return;
        pending.set(id, { answeredAt: performance.now(), state: null });
        if (created++ % 2 === 0) return;
        // The cancel waits until the create shows: one pending change per shipment.
        cancels.push(
          (async () => {
            while (pending.has(id)) await new Promise((r) => setTimeout(r, POLL_MS));
            const res = await call(ctx.gateway, { method: "POST", path: `/v2/external/shipments/${id}/cancel`, headers: authJson(ctx), body: JSON.stringify({ reason: "CUSTOMER_REQUEST" }) });
            if (res.status === 200) pending.set(id, { answeredAt: performance.now(), state: "CANCELLED" });
            else cancelRefused++;
          })(),
        );
      },
    };
    const measure = async () => {
      const db = new pg.Client({ connectionString: ctx.trackingDatabaseUrl });
      await db.connect();
      let watching = true;
      const watcher = (async () => {
        for (;;) {
          const ids = [...pending.keys()];
          if (ids.length) {
            const { rows } = await db.query<{ id: string; state: string }>("SELECT shipment_id::text AS id, state FROM tracked_shipment WHERE shipment_id = ANY($1::uuid[])", [ids]);
            const now = performance.now();
            for (const row of rows) {
              const want = pending.get(row.id);
              if (!want || (want.state !== null && row.state !== want.state)) continue;
              (want.state === null ? lags.create : lags.cancel).push(now - want.answeredAt);
              pending.delete(row.id);
            }
            for (const [id, w] of pending) {
              if (now - w.answeredAt <= DEADLINE_MS) continue;
              lags.missed[w.state === null ? "create" : "cancel"]++;
              pending.delete(id);
            }
          }
          if (!watching && pending.size === 0) break;
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
      })();
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const [seenBefore, missedBefore] = [lags.create.length, lags.missed.create];
      try {
        const load = await paced(endpoint, { connections: ctx.settings.connections, seconds: ctx.settings.roundSeconds, rate });
        // Every create's cancel is sent (or refused) once its create shows; then the watcher drains.
        while (cancels.length) await Promise.all(cancels.splice(0));
        watching = false;
        await watcher;
        const seconds = (performance.now() - started) / 1000;
        const cpu = process.cpuUsage(cpuBefore);
        return {
          figures: roundFigures(lags.create.slice(seenBefore), lags.missed.create - missedBefore + load.figures.errors, seconds, ((cpu.user + cpu.system) / 1e6 / seconds) * 100),
          failures: load.failures,
        };
      } finally {
        watching = false;
        await watcher.catch(() => undefined);
        await db.end();
      }
    };
    return {
      kind: "custom",
      notes: `${rate.toFixed(1)} creates/s, every other one cancelled once its create shows; req/s and latency columns are creates seen in the projection and their lag`,
      measure,
      lags: (): LagFigures[] => [
        lagFigures("create to tracking projection", lags.create, lags.missed.create),
        { ...lagFigures("cancel to tracking projection", lags.cancel, lags.missed.cancel), ...(cancelRefused ? { note: `${cancelRefused} cancels refused (the fleet had offered the shipment first)` } : {}) },
      ],
    };
  },
};
