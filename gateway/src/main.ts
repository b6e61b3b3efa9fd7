import { createLogger, initTracing, shutdownTracing } from "@tawsil/logging";
import { METRICS_PORT_OFFSET, sidePort } from "@tawsil/config";
import { createKafka, kafkaConnection } from "@tawsil/events";
import { createMetrics, drainOnSignals, processIdentity, startMetricsServer } from "@tawsil/rpc";
import { buildGateway } from "./app";
import { Revocations } from "./auth/revocations";
import { readConfig } from "./config";
import { listenToAccessRevocations } from "./consumers/access-revocations";

const config = readConfig(process.env);
initTracing({ serviceName: config.OTEL_SERVICE_NAME ?? "gateway", endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT, rootRatio: config.OTEL_TRACES_SAMPLER_RATIO });
const logger = createLogger({ service: "gateway", level: config.LOG_LEVEL });
const metrics = createMetrics("gateway");

// A token issued just before a revocation may live its lifetime plus the accepted skew.
const tokenLifeMs = (config.TOKEN_TTL_SECONDS + config.TOKEN_CLOCK_SKEW_SECONDS) * 1000;
const revocations = new Revocations(tokenLifeMs);
const revocationFeed = listenToAccessRevocations({
  kafka: createKafka({ clientId: "gateway", logger, ...kafkaConnection(config) }),
  revocations,
  lookbackMs: tokenLifeMs,
  logger,
  registry: metrics.registry,
});
// In the background: the gateway serves without the broker (readiness never waits on it).
revocationFeed.startInBackground();

// The gateway serves no RPC: it only signs its calls (in production, a missing key stops it here).
const app = buildGateway({ config, logger, registry: metrics.registry, revocations, identity: processIdentity("gateway", config, logger).self });

await app.listen({ host: config.HOST, port: config.PORT });
// Prometheus reads the gateway on a port the ingress never routes to, so the internet cannot.
const scrape = await startMetricsServer({ host: config.HOST, port: sidePort(config.PORT, config.METRICS_PORT, METRICS_PORT_OFFSET), registry: metrics.registry });
logger.info({ url: `http://${config.HOST}:${config.PORT}`, metricsUrl: scrape.url, environment: config.TAWSIL_ENVIRONMENT }, "listening");
drainOnSignals(
  logger,
  [
    { name: "http", close: () => app.close() },
    { name: "access-revocations", close: () => revocationFeed.stop() },
    { name: "metrics", close: () => scrape.close() },
    // Last: the drained requests' spans are batched until then.
    { name: "tracing", close: shutdownTracing },
  ],
  config.SHUTDOWN_GRACE_MS + 5_000,
);
