import { createLogger, initTracing } from "@tawsil/logging";
import { createMetrics, drainOnSignals, processIdentity } from "@tawsil/rpc";
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
  // The gateway serves no RPC: it only signs its calls (in production, a missing key stops it here).
  peers: createPeers(config, processIdentity("gateway", config, logger).self),
  readiness: meshReadiness(peerUrls(config), config.READINESS_TIMEOUT_MS, logger),
  registry: metrics.registry,
});

await app.listen({ host: config.HOST, port: config.PORT });
logger.info({ url: `http://${config.HOST}:${config.PORT}`, environment: config.TAWSIL_ENVIRONMENT }, "listening");
drainOnSignals(logger, [{ name: "http", close: () => app.close() }], config.SHUTDOWN_GRACE_MS + 5_000);
