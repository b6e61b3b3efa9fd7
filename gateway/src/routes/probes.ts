import type { FastifyInstance } from "fastify";
import type { GatewayReadinessReport } from "../readiness";

/**
 * Liveness and the process's readiness (with the services it knows of), outside the /v2 contract.
 * /metrics is not here: it has a port of its own (METRICS_PORT), which the ingress never routes to.
 */
export function registerProbeRoutes(app: FastifyInstance, readiness: () => GatewayReadinessReport): void {
  app.get("/healthz", async (_request, reply) => reply.header("cache-control", "no-store").send({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const report = readiness();
    return reply
      .code(report.ready ? 200 : 503)
      .header("cache-control", "no-store")
      .send({ status: report.ready ? "ready" : "not_ready", checks: report.checks, services: report.services });
  });
}
