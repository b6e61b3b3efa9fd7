/**
 * Webhook fan-out: creates at a fixed rate while a local receiver records each shipment.created
 * delivery; the figures are deliveries per second and the lag from the create's answer to the
 * delivery's arrival (./webhook-receiver.ts). Paced by the creates: webhook-burst measures what
 * the delivery path can do on its own.
 */
import { paced } from "../../../packages/testing/src/load/driver";
import { roundFigures } from "../../../packages/testing/src/load/stats";
import { createEndpoint } from "./create";
import type { Scenario } from "./scenario";
import { registerReceiver } from "./webhook-receiver";

/** Deliveries still arriving this long after the last create count. */
const DRAIN_MS = 10_000;

export const webhookFanout: Scenario = {
  name: "webhook-fanout",
  title: "webhook fan-out (create to delivery)",
  async prepare(ctx) {
    const registered = await registerReceiver(ctx);
    if ("unavailable" in registered) return { kind: "unavailable", reason: registered.unavailable };
    const { arrivals } = registered.receiver;
    const max = ctx.results.get("create")?.mesh?.median.throughput;
    const rate = max && max > 0 ? max / 2 : 10;
    const created = new Map<string, number>();
    const endpoint = {
      ...createEndpoint(ctx, ctx.gateway, "w"),
      // The create's answer (shape A) carries the shipment id: note when it came back.
      onResponse: (body: string) => {
        const id = (JSON.parse(body) as { id?: unknown }).id;
        if (typeof id === "string") created.set(id, performance.now());
      },
    };
    return {
      kind: "custom",
      notes: `${rate.toFixed(1)} creates/s; lag from the create's answer to the delivery`,
      async measure() {
        arrivals.clear();
        created.clear();
        const cpuBefore = process.cpuUsage();
        const started = performance.now();
        const load = await paced(endpoint, { connections: ctx.settings.connections, seconds: ctx.settings.roundSeconds, rate });
        const until = performance.now() + DRAIN_MS;
        while (performance.now() < until && [...created.keys()].some((id) => !arrivals.has(id))) await new Promise((r) => setTimeout(r, 200));
        const lags = [...created].flatMap(([id, at]) => (arrivals.has(id) ? [arrivals.get(id)! - at] : []));
        const seconds = (performance.now() - started) / 1000;
        const cpu = process.cpuUsage(cpuBefore);
        return {
          figures: roundFigures(lags, created.size - lags.length + load.figures.errors, seconds, ((cpu.user + cpu.system) / 1e6 / seconds) * 100),
          failures: load.failures,
        };
      },
    };
  },
};
