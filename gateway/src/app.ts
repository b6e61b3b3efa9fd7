import type { Logger } from "@tawsil/logging";
import type { ServiceIdentity } from "@tawsil/rpc";
import type { Registry } from "prom-client";
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, type onRequestAsyncHookHandler } from "fastify";
import { authenticate } from "./auth/authenticate";
import { limitPerClient } from "./auth/client-rate-limit";
import { DRIVER_SCOPE, type Scope } from "./auth/principal";
import { Revocations } from "./auth/revocations";
import { SigningKeys } from "./auth/signing-keys";
import { TokenVerifier } from "./auth/token-verifier";
import { createPeers } from "./clients";
import { peerUrls, type GatewayConfig } from "./config";
import { watchPeers } from "./peers/health-watch";
import { clientErrorHandler } from "./problem/client-error";
import { frameworkErrorHandler, registerProblemHandlers } from "./problem/error-handler";
import { NO_RESOURCE } from "./problem/framework-errors";
import { ProblemError } from "./problem/problem-error";
import { gatewayReadiness } from "./readiness";
import { registerCorrelation } from "./request/correlation";
import { checkLanguageHeader, languageOf } from "./request/language";
import { registerRequestMetrics } from "./request/metrics";
import { requestIdOf, tracedServerFactory } from "./request/tracing";
import { MemoryLimitStore, type LimitStore } from "./rate-limit/limit-store";
import { lockout, slidingWindow, tokenBucket } from "./rate-limit/limits";
import { RedisLimitStore } from "./rate-limit/redis-limit-store";
import { TokenBuckets } from "./rate-limit/token-bucket";
import { publicTrackingLimits } from "./tracking/public-limits";
import { registerJwks } from "./routes/jwks";
import { registerOpenApi } from "./routes/openapi";
import { registerMe } from "./routes/me";
import { registerPriceEstimates } from "./routes/price-estimates";
import { registerProblemPages } from "./routes/problem-pages";
import { registerShipments } from "./routes/shipments";
import { registerTracking } from "./routes/tracking";
import { isCustomerPageRequest, sendLinkNotFoundPage } from "./tracking/page-route";
import { registerTokenEndpoint } from "./routes/oauth-token";
import { registerProbeRoutes } from "./routes/probes";
import { ParameterisedPaths } from "./routes/parameterised-paths";
import { acceptEveryParsedMethod } from "./routes/route-table";
import { registerWebhook } from "./routes/webhook";
import { DownloadLinks } from "./media/download-links";
import { registerDriverMediaAssets, registerMediaAssets } from "./routes/media-assets";
import { registerDriverRoutes } from "./routes/driver";
import { trustedProxies } from "./request/trusted-proxies";

declare module "fastify" {
  interface FastifyInstance {
    /** The onRequest hooks of a /v2 operation, run before the body is read: a valid token (holding `scope` when given), then the client's rate limit. */
    guard(scope?: Scope): onRequestAsyncHookHandler[];
    /** The onRequest hooks of a /v2/driver operation: a valid driver's token (scope driver), then the driver's rate limit. */
    driverGuard(): onRequestAsyncHookHandler[];
  }
}

export interface GatewayDeps {
  readonly config: GatewayConfig;
  readonly logger: Logger;
  /** The process's metrics (the HTTP histogram registers here); served on METRICS_PORT by main.ts. */
  readonly registry: Registry;
  /** Signs every call to a service with the gateway's service token; none in local runs without keys. */
  readonly identity?: ServiceIdentity | undefined;
  /** Access revoked before expiry, fed by main.ts from the merchant service's events; none when absent. */
  readonly revocations?: Revocations;
}

/**
 * Longest path segment the router matches. Every path parameter of the API is an identifier far
 * shorter (a uuid, a 43-character tracking code); a longer one is refused as a malformed parameter.
 */
const MAX_PATH_PARAMETER_LENGTH = 100;

/**
 * Where the limits of decisions.md section 14 are counted: a Redis the replicas share, so each
 * holds for the deployment (required in production), else this replica's memory (make dev, one
 * gateway). Readiness does not depend on it: without Redis each replica limits from its memory.
 */
function limitStore(deps: GatewayDeps): LimitStore {
  const url = deps.config.RATE_LIMIT_REDIS_URL;
  if (!url) return new MemoryLimitStore();
  return new RedisLimitStore({ url, timeoutMs: deps.config.RATE_LIMIT_REDIS_TIMEOUT_MS, logger: deps.logger, registry: deps.registry });
}

export function buildGateway(deps: GatewayDeps): FastifyInstance {
  const { config } = deps;
  // Every service's health, watched for as long as the gateway runs; each peer client refuses at
  // once while its service is known down (clients.ts).
  const health = watchPeers(
    peerUrls(config),
    {
      intervalMs: config.PEER_HEALTH_INTERVAL_MS,
      steadyIntervalMs: config.PEER_HEALTH_STEADY_INTERVAL_MS ?? 10 * config.PEER_HEALTH_INTERVAL_MS,
      timeoutMs: config.PEER_HEALTH_TIMEOUT_MS,
    },
    deps.logger,
  );
  const peers = createPeers(config, health, deps.identity);
  const problems = { baseUrl: config.PUBLIC_BASE_URL, bodyLimitBytes: config.BODY_LIMIT_BYTES };
  const parameterised = new ParameterisedPaths();
  const problemForFrameworkError = frameworkErrorHandler(problems, parameterised);
  const app = Fastify({
    // A pino logger; typed as fastify's base logger so the instance keeps its default generics.
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // Refusals made before fastify has a route or even a request: each still answers a problem.
    frameworkErrors: (error, request, reply) =>
      isCustomerPageRequest(request) ? sendLinkNotFoundPage(request, reply) : problemForFrameworkError(error, request, reply),
    clientErrorHandler: clientErrorHandler(config.PUBLIC_BASE_URL),
    requestIdHeader: false,
    genReqId: requestIdOf,
    serverFactory: tracedServerFactory,
    return503OnClosing: true,
    // request.ip (the per-address limits of the token endpoint and public tracking): X-Forwarded-For
    // only from the proxies' ranges, read from the right (request/trusted-proxies.ts), so neither a
    // direct caller nor a client behind the proxy picks its own address.
    trustProxy: trustedProxies(config.TRUSTED_PROXY_CIDRS),
  });
  app.addHook("onRoute", (route) => parameterised.add(route.url));
  app.decorateRequest("principal", undefined);
  acceptEveryParsedMethod(app);
  // The API reads JSON only: fastify's text/plain parser goes, so any other body type is a 415.
  app.removeContentTypeParser("text/plain");
  registerCorrelation(app);
  registerRequestMetrics(app, deps.registry);
  app.addHook("onRequest", async (request, reply) => {
    const header = request.headers["accept-language"];
    checkLanguageHeader(typeof header === "string" ? header : undefined);
    void reply.header("content-language", languageOf(request));
  });
  // The router matches an empty parameter (`/v2/public/tracking/`) to its route, but such a path
  // names nothing: 404 like every path the document does not describe (found by fuzzing: it was a
  // 400, and a 405 for other methods).
  app.addHook("onRequest", async (request) => {
    if (Object.values((request.params ?? {}) as Record<string, unknown>).includes("")) throw new ProblemError("RESOURCE_NOT_FOUND", NO_RESOURCE);
  });
  // A DELETE carries no content: a Content-Type on an empty one describes nothing, so it is
  // dropped before fastify would refuse it with a 415 the document does not list (found by fuzzing).
  app.addHook("onRequest", async (request) => {
    const { headers } = request.raw;
    if (request.method === "DELETE" && headers["transfer-encoding"] === undefined && (headers["content-length"] ?? "0") === "0") delete headers["content-type"];
  });
  registerProblemHandlers(app, problems);
  app.addHook("onClose", async () => health.close());

  const keys = new SigningKeys(peers.merchant);
  // Read at once, so the gateway is ready as soon as the issuer answers; /readyz asks again until then.
  keys.refresh().catch(() => {});
  registerProbeRoutes(app, gatewayReadiness(keys, health.statuses));
  const revocations = deps.revocations ?? new Revocations(0);
  const verifier = new TokenVerifier(keys, { issuer: config.TOKEN_ISSUER, audience: config.TOKEN_AUDIENCE, driverAudience: config.DRIVER_TOKEN_AUDIENCE, clockSkewSeconds: config.TOKEN_CLOCK_SKEW_SECONDS }, revocations);
  const limits = limitStore(deps);
  app.addHook("onClose", async () => limits.close());
  const perClient = limitPerClient(limits, tokenBucket("client", config.RATE_LIMIT_BURST, config.RATE_LIMIT_PER_SECOND));
  const guard = (scope?: Scope) => [authenticate(verifier, scope), perClient];
  app.decorate("guard", guard);
  const driverOf = (request: FastifyRequest) => (request.principal?.kind === "driver" ? request.principal.driverId : "");
  const perDriver = limitPerClient(limits, tokenBucket("driver", config.DRIVER_RATE_LIMIT_BURST, config.DRIVER_RATE_LIMIT_PER_SECOND), driverOf);
  app.decorate("driverGuard", () => [authenticate(verifier, DRIVER_SCOPE, "driver"), perDriver]);

  registerTokenEndpoint(app, {
    merchant: peers.merchant,
    store: limits,
    perAddress: slidingWindow("token-address", config.TOKEN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE, 60),
    global: new TokenBuckets(config.TOKEN_GLOBAL_BURST, config.TOKEN_GLOBAL_RATE_PER_SECOND),
    perClient: slidingWindow("token", config.TOKEN_RATE_LIMIT_PER_MINUTE, 60),
    lockout: lockout("auth-failures", config.AUTH_FAILURES_BEFORE_LOCKOUT, 60, config.AUTH_LOCKOUT_SECONDS),
  });
  registerJwks(app, keys);
  registerMe(app, peers.merchant);
  registerPriceEstimates(app, peers.pricing);
  registerShipments(app, peers.shipment);
  registerTracking(
    app,
    peers.tracking,
    publicTrackingLimits(
      limits,
      slidingWindow("tracking-address", config.PUBLIC_TRACKING_RATE_LIMIT_PER_ADDRESS_PER_MINUTE, 60),
      slidingWindow("tracking-link", config.PUBLIC_TRACKING_RATE_LIMIT_PER_MINUTE, 60),
    ),
  );
  registerWebhook(app, peers.webhook);
  const media = {
    links: new DownloadLinks({ baseUrl: config.PUBLIC_BASE_URL, key: config.MEDIA_DOWNLOAD_SECRET, ttlSeconds: config.MEDIA_DOWNLOAD_TTL_SECONDS }),
    limitBytes: config.MEDIA_UPLOAD_LIMIT_BYTES,
    transferTimeoutMs: config.MEDIA_TRANSFER_TIMEOUT_MS,
  };
  registerMediaAssets(app, peers.mediaAssets, media);
  registerDriverRoutes(app, peers.drivers, config.PEER_TIMEOUT_MS);
  registerDriverMediaAssets(app, peers.mediaAssets, media);
  registerOpenApi(app);
  registerProblemPages(app);
  return app;
}
