import { createLogger, initTracing } from "@tawsil/logging";
import { createMetrics, drainOnSignals, processIdentity } from "@tawsil/rpc";
import { buildGateway } from "./app";
import { readConfig } from "./config";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "gateway", level: config.LOG_LEVEL });
const metrics = createMetrics("gateway");

// The gateway serves no RPC: it only signs its calls (in production, a missing key stops it here).
const app = buildGateway({ config, logger, registry: metrics.registry, identity: processIdentity("gateway", config, logger).self });

await app.listen({ host: config.HOST, port: config.PORT });
logger.info({ url: `http://${config.HOST}:${config.PORT}`, environment: config.TAWSIL_ENVIRONMENT }, "listening");
drainOnSignals(logger, [{ name: "http", close: () => app.close() }], config.SHUTDOWN_GRACE_MS + 5_000);
