import type { FastifyInstance } from "fastify";
import type { Registry } from "prom-client";
import type { GatewayReadinessReport } from "../readiness";

/** Liveness, the process's readiness (with the services it knows of) and Prometheus metrics, outside the /v2 contract. */
export function registerProbeRoutes(app: FastifyInstance, readiness: () => GatewayReadinessReport, registry: Registry): void {
  app.get("/healthz", async (_request, reply) => reply.header("cache-control", "no-store").send({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const report = readiness();
    return reply
      .code(report.ready ? 200 : 503)
      .header("cache-control", "no-store")
      .send({ status: report.ready ? "ready" : "not_ready", checks: report.checks, services: report.services });
  });
  app.get("/metrics", async (_request, reply) => reply.header("content-type", registry.contentType).send(await registry.metrics()));
}
