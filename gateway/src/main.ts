import { createLogger, initTracing } from "@tawsil/logging";
import { METRICS_PORT_OFFSET, sidePort } from "@tawsil/config";
import { createMetrics, drainOnSignals, startMetricsServer } from "@tawsil/rpc";
import { buildGateway } from "./app";
import { createPeers } from "./clients";
import { peerUrls, readConfig } from "./config";
import { meshReadiness } from "./readiness";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "gateway", level: config.LOG_LEVEL });
const metrics = createMetrics("gateway");

const app = buildGateway({
  config,
  logger,
  peers: createPeers(config),
  readiness: meshReadiness(peerUrls(config), config.READINESS_TIMEOUT_MS, logger),
});

await app.listen({ host: config.HOST, port: config.PORT });
// Prometheus reads the gateway on a port the ingress never routes to, so the internet cannot.
const scrape = await startMetricsServer({ host: config.HOST, port: sidePort(config.PORT, config.METRICS_PORT, METRICS_PORT_OFFSET), registry: metrics.registry });
logger.info({ url: `http://${config.HOST}:${config.PORT}`, metricsUrl: scrape.url, environment: config.TAWSIL_ENVIRONMENT }, "listening");
drainOnSignals(
  logger,
  [
    { name: "http", close: () => app.close() },
    { name: "metrics", close: () => scrape.close() },
  ],
  config.SHUTDOWN_GRACE_MS + 5_000,
);
