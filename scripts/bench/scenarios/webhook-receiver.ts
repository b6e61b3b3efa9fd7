/**
 * The merchant's side of the webhook scenarios: one local receiver for the whole run, noting when
 * each shipment's first shipment.created delivery arrived, registered as the bench merchant's
 * endpoint. One receiver, so the scenarios that use it register the same url and the second
 * registration answers the first's endpoint (decisions.md section 11) instead of a 409.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { call } from "../../../packages/testing/src/load/driver";
import { authJson, problemCode, type BenchContext } from "./scenario";

export interface Receiver {
  /** Shipment id -> performance.now() at the arrival of its first shipment.created delivery. */
  readonly arrivals: Map<string, number>;
  readonly url: string;
}

let started: Promise<Receiver> | undefined;

/** The run's receiver, started on first use; it answers every delivery 204 at once. */
export function receiver(): Promise<Receiver> {
  started ??= (async () => {
    const arrivals = new Map<string, number>();
    const server = http.createServer((req, res) => {
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
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    server.unref();
    return { arrivals, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
  })();
  return started;
}

/**
 * Registers the receiver as the bench merchant's endpoint for shipment.created; the reason it
 * cannot be, for an unavailable scenario (no webhook routes yet, or a loopback receiver refused:
 * the webhook service's WEBHOOK_ALLOW_INSECURE_URLS must be on, as `make dev` sets it).
 */
export async function registerReceiver(ctx: BenchContext): Promise<{ receiver: Receiver } | { unavailable: string }> {
  const probe = await call(ctx.gateway, { method: "GET", path: "/v2/external/webhook", headers: authJson(ctx) });
  if (probe.status === 404 && problemCode(probe.body) !== "WEBHOOK_NOT_FOUND") {
    return { unavailable: `not available yet: GET /v2/external/webhook answers 404 ${problemCode(probe.body) ?? ""}`.trim() };
  }
  const local = await receiver();
  const registered = await call(ctx.gateway, { method: "POST", path: "/v2/external/webhook", headers: authJson(ctx), body: JSON.stringify({ url: local.url, events: ["shipment.created"] }) });
  if (registered.status !== 201 && problemCode(registered.body) !== "WEBHOOK_ALREADY_EXISTS") {
    return { unavailable: `registering a loopback receiver answered ${registered.status} ${problemCode(registered.body) ?? ""}`.trim() };
  }
  return { receiver: local };
}

/**
 * PATCHes the endpoint's status (If-Match its current ETag); throws on anything but 200. Resolves
 * to the performance.now() at which the PATCH was sent: the change may commit before its answer.
 */
export async function setEndpointStatus(ctx: BenchContext, status: "ACTIVE" | "PAUSED"): Promise<number> {
  const current = await call(ctx.gateway, { method: "GET", path: "/v2/external/webhook", headers: authJson(ctx) });
  const etag = current.headers.etag;
  if (current.status !== 200 || typeof etag !== "string") throw new Error(`GET /v2/external/webhook answered ${current.status} ${problemCode(current.body) ?? ""}`);
  const sentAt = performance.now();
  const res = await call(ctx.gateway, { method: "PATCH", path: "/v2/external/webhook", headers: { ...authJson(ctx), "if-match": etag }, body: JSON.stringify({ status }) });
  if (res.status !== 200) throw new Error(`PATCH /v2/external/webhook {status: ${status}} answered ${res.status} ${problemCode(res.body) ?? ""}`);
  return sentAt;
}
