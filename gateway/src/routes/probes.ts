import type { FastifyInstance } from "fastify";
import type { Registry } from "prom-client";
import type { MeshReadiness } from "../readiness";

/** Liveness, mesh readiness and Prometheus metrics, outside the /v2 contract. */
export function registerProbeRoutes(app: FastifyInstance, readiness: () => Promise<MeshReadiness>, registry: Registry): void {
  app.get("/healthz", async (_request, reply) => reply.header("cache-control", "no-store").send({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    const report = await readiness();
    return reply
      .code(report.ready ? 200 : 503)
      .header("cache-control", "no-store")
      .send({ status: report.ready ? "ready" : "not_ready", services: report.services, dependencies: report.dependencies });
  });
  app.get("/metrics", async (_request, reply) => reply.header("content-type", registry.contentType).send(await registry.metrics()));
}
