import { randomUUID } from "node:crypto";
import type { Logger } from "@tawsil/logging";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from "fastify";
import type { Registry } from "prom-client";
import { registerProblemHandlers } from "./problem/error-handler";
import type { MeshReadiness } from "./readiness";
import { registerCorrelation } from "./request/correlation";
import { checkLanguageHeader } from "./request/language";
import { tracedServerFactory } from "./request/tracing";
import { registerProbeRoutes } from "./routes/probes";

export interface GatewayDeps {
  readonly logger: Logger;
  readonly publicBaseUrl: string;
  readonly readiness: () => Promise<MeshReadiness>;
  readonly registry: Registry;
}

/** Request bodies above this are refused with 413 before they are read (decisions.md section 14). */
export const BODY_LIMIT_BYTES = 256 * 1024;

export function buildGateway(deps: GatewayDeps): FastifyInstance {
  const app = Fastify({
    // A pino logger; typed as fastify's base logger so the instance keeps its default generics.
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
    genReqId: () => randomUUID(),
    serverFactory: tracedServerFactory,
    return503OnClosing: true,
  });
  registerCorrelation(app);
  app.addHook("onRequest", async (request) => {
    const header = request.headers["accept-language"];
    checkLanguageHeader(typeof header === "string" ? header : undefined);
  });
  registerProblemHandlers(app, deps.publicBaseUrl);
  registerProbeRoutes(app, deps.readiness, deps.registry);
  return app;
}
