/**
 * Webhook fan-out: creates at a fixed rate while a local receiver records each shipment.created
 * delivery; the figures are deliveries per second and the lag from the create's answer to the
 * delivery's arrival. Not available while the gateway has no webhook routes (or refuses a
 * loopback receiver: the webhook service's setting that allows http and loopback must be on).
 * Written against decisions.md section 11 before the webhook service existed: check it the
 * first time it runs.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { call, paced } from "../driver";
import { roundFigures } from "../stats";
import { createEndpoint } from "./create";
import { authJson, problemCode, type Scenario } from "./scenario";

/** Deliveries still arriving this long after the last create count. */
const DRAIN_MS = 10_000;

export const webhookFanout: Scenario = {
  name: "webhook-fanout",
  title: "webhook fan-out (create to delivery)",
  async prepare(ctx) {
    const probe = await call(ctx.gateway, { method: "GET", path: "/v2/external/webhook", headers: authJson(ctx) });
    if (probe.status === 404 && problemCode(probe.body) !== "WEBHOOK_NOT_FOUND") {
      return { kind: "unavailable", reason: `not available yet: GET /v2/external/webhook answers 404 ${problemCode(probe.body) ?? ""}`.trim() };
    }
    const arrivals = new Map<string, number>();
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        try {
          const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { type?: string; data?: { shipmentId?: string } };
          if (event.type === "shipment.created" && event.data?.shipmentId && !arrivals.has(event.data.shipmentId)) arrivals.set(event.data.shipmentId, performance.now());
        } catch {
          // not an event: ignored
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    receiver.unref();
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const registered = await call(ctx.gateway, { method: "POST", path: "/v2/external/webhook", headers: authJson(ctx), body: JSON.stringify({ url, events: ["shipment.created"] }) });
    if (registered.status !== 201 && problemCode(registered.body) !== "WEBHOOK_ALREADY_EXISTS") {
      receiver.close();
      return { kind: "unavailable", reason: `registering a loopback receiver answered ${registered.status} ${problemCode(registered.body) ?? ""}`.trim() };
    }
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
