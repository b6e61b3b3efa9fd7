import type { FastifyInstance } from "fastify";
import { Histogram, type Registry } from "prom-client";

/** Requests no route matched (unknown paths, refusals before routing) share one label value. */
const UNROUTED = "unrouted";

/**
 * The gateway's request latency by method, route template and status: what merchants experience,
 * for the error-rate and latency alerts (deploy/base/alerts/gateway.yaml) and the dashboard. The
 * route is the template (`/v2/external/shipments/:shipmentId`), never the raw path, so the label
 * set stays bounded whatever paths clients send.
 */
export function registerRequestMetrics(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: "http_server_request_duration_seconds",
    help: "Time to answer an HTTP request, by method, route template and status code.",
    labelNames: ["method", "route", "status_code"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? UNROUTED;
    duration.observe({ method: request.method, route, status_code: reply.statusCode }, reply.elapsedTime / 1000);
  });
}
