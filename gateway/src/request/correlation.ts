import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { isUuid } from "@tawsil/domain";

declare module "fastify" {
  interface FastifyRequest {
    correlationId: string;
  }
}

/**
 * Every response carries `X-Request-Id` (new per request: it is fastify's request id) and
 * `X-Correlation-Id` (the caller's, when it is a uuid, else new), so a merchant can quote either.
 */
export function registerCorrelation(app: FastifyInstance): void {
  app.decorateRequest("correlationId", "");
  app.addHook("onRequest", async (request, reply) => correlate(request, reply));
}

/** Also called for requests fastify refuses before any hook runs (framework errors). */
export function correlate(request: FastifyRequest, reply: FastifyReply): void {
  const given = request.headers["x-correlation-id"];
  request.correlationId = typeof given === "string" && isUuid(given) ? given.toLowerCase() : randomUUID();
  void reply.header("x-request-id", request.id).header("x-correlation-id", request.correlationId);
}
