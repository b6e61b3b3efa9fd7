import type { FastifyInstance } from "fastify";
import type { MeshReadiness } from "../readiness";

/**
 * Liveness and mesh readiness, outside the /v2 contract. /metrics is not here: it has a port of
 * its own (METRICS_PORT), which the ingress never routes to.
 */
export function registerProbeRoutes(app: FastifyInstance, readiness: () => Promise<MeshReadiness>): void {
  app.get("/healthz", async (_request, reply) => reply.header("cache-control", "no-store").send({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const report = await readiness();
    return reply
      .code(report.ready ? 200 : 503)
      .header("cache-control", "no-store")
      .send({ status: report.ready ? "ready" : "not_ready", services: report.services, dependencies: report.dependencies });
  });
}
