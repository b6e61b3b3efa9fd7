/**
 * Webhook deliveries not bounded by the create rate (issue 34): the bench merchant's endpoint is
 * PAUSED while a round's backlog of shipments is created (their shipment.created deliveries are
 * queued held, decisions.md section 11), the mesh settles, and the measured window starts at the
 * RESUME: from there on the mesh does nothing but deliver to the local receiver. A mesh that
 * creates ~40 shipments a second cannot offer 500 events a second; a held backlog can.
 *
 * Figures, per round: deliveries per second (first attempts that arrived, over the time from the
 * resume to the last of them); event to first attempt, each event charged from its instant on a
 * 500/s schedule starting at the resume (stats.ts lagsBehindSchedule); and, through the rounds'
 * CPU readings, the CPU each process spends per delivery. Neither occurredAt nor the resume alone
 * is a fair start: occurredAt charges the pause the bench imposed, and the resume charges the
 * last event of the backlog the time to send all the others (p99 = 99% of the backlog / rate).
 */
import { closedLoop } from "../../../packages/testing/src/load/driver";
import { settled } from "../cpu-budget";
import { query } from "../../../packages/testing/src/seed/seed";
import { lagsBehindSchedule, percentile, roundFigures } from "../../../packages/testing/src/load/stats";
import { createEndpoint } from "./create";
import type { Scenario } from "./scenario";
import { registerReceiver, setEndpointStatus } from "./webhook-receiver";

/** Issue 34's rate: first attempts a second to a local receiver. */
export const TARGET_RATE = 500;
/** The mesh counts as settled once its processes together spend less than this % of one core. */
const SETTLED_PERCENT = 15;

export const webhookBurst: Scenario = {
  name: "webhook-burst",
  title: "webhook deliveries, a paused backlog resumed",
  target: { what: "deliveries/s", op: ">=", value: TARGET_RATE, unit: "/s" },
  figure: (result) => result.mesh?.median.throughput ?? Number.NaN,
  async prepare(ctx) {
    const webhookDb = ctx.webhookDatabaseUrl;
    if (!webhookDb) return { kind: "unavailable", reason: "the webhook service's database is not known to the bench" };
    const registered = await registerReceiver(ctx);
    if ("unavailable" in registered) return { kind: "unavailable", reason: registered.unavailable };
    const { arrivals } = registered.receiver;
    // A round's worth of delivery at the target rate: the default 3 rounds of 6 s hold 18 s of it.
    const backlog = Math.round(TARGET_RATE * ctx.settings.roundSeconds);
    const created = new Set<string>();
    const endpoint = {
      ...createEndpoint(ctx, ctx.gateway, "h"),
      onResponse: (body: string) => {
        const id = (JSON.parse(body) as { id?: unknown }).id;
        if (typeof id === "string") created.add(id);
      },
    };

    const beforeRound = async () => {
      created.clear();
      arrivals.clear();
      await setEndpointStatus(ctx, "PAUSED");
      try {
        const started = performance.now();
        const load = await closedLoop(endpoint, { connections: ctx.settings.connections, seconds: 3600, requests: backlog });
        ctx.log(`  backlog: ${created.size} shipments created while paused in ${((performance.now() - started) / 1000).toFixed(0)} s (${load.figures.errors} errors)`);
        await heldInFull(webhookDb, created, 120_000);
        if (!(await settled(ctx.meshProcesses(), SETTLED_PERCENT, 60))) ctx.log(`  the mesh still spent over ${SETTLED_PERCENT}% of a core after 60 s: the window starts anyway`);
      } catch (err) {
        await setEndpointStatus(ctx, "ACTIVE");
        throw err;
      }
    };

    const measure = async () => {
      const cpuBefore = process.cpuUsage();
      const resumedAt = await setEndpointStatus(ctx, "ACTIVE");
      // At least 50 deliveries a second, or what has not arrived counts as missed.
      const deadline = resumedAt + 30_000 + (created.size / 50) * 1000;
      while (performance.now() < deadline && [...created].some((id) => !arrivals.has(id))) await new Promise((r) => setTimeout(r, 100));
      const times = [...created].flatMap((id) => (arrivals.has(id) ? [arrivals.get(id)!] : []));
      const seconds = Math.max(...times, resumedAt + 1) / 1000 - resumedAt / 1000;
      const fromResume = times.map((t) => t - resumedAt).sort((a, b) => a - b);
      ctx.log(`  ${times.length}/${created.size} delivered; from the resume: p50 ${percentile(fromResume, 0.5).toFixed(0)} ms, p99 ${percentile(fromResume, 0.99).toFixed(0)} ms, last ${(seconds * 1000).toFixed(0)} ms`);
      const cpu = process.cpuUsage(cpuBefore);
      return {
        figures: roundFigures(lagsBehindSchedule(times, resumedAt, TARGET_RATE), created.size - times.length, seconds, ((cpu.user + cpu.system) / 1e6 / seconds) * 100),
        failures: [],
      };
    };

    return {
      kind: "custom",
      notes: `${backlog} shipments created while the endpoint is paused, then resumed; req/s is first attempts a second from the resume to the last, p50/p99 each event's lag behind a ${TARGET_RATE}/s schedule from the resume; one endpoint, so at most WEBHOOK_ENDPOINT_CONCURRENCY sends in flight (decisions.md section 11)`,
      beforeRound,
      measure,
    };
  },
};

/** Waits until every created shipment's delivery is queued, held by the pause. */
async function heldInFull(webhookDb: string, shipments: ReadonlySet<string>, timeoutMs: number): Promise<void> {
  const ids = [...shipments];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await query<{ held: string }>(webhookDb, "SELECT count(*) AS held FROM webhook_delivery WHERE held AND status = 'PENDING' AND shipment_id = ANY($1::uuid[])", [ids]);
    const held = Number(row?.held ?? 0);
    if (held >= ids.length) return;
    if (Date.now() > deadline) throw new Error(`${held} of ${ids.length} deliveries queued after ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
