// Composition root of the pricing service: configuration, then infrastructure, then the server.
import { connectKafka } from "@tawsil/events";
import { createLogger, initTracing } from "@tawsil/logging";
import { runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { listenToMerchantChanges } from "./consumers/merchant-changes";
import { composePricingService, SERVICE_NAMES } from "./server";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "pricing", level: config.LOG_LEVEL });

try {
  const parts = await composePricingService(config, logger);
  // The broker only keeps the rate-card cache fresh: it is not part of pricing's readiness, since
  // quotes go on (with entries bounded by RATE_CARD_CACHE_MAX_AGE_MS) while it is away.
  const broker = connectKafka({ clientId: "pricing", brokers: config.KAFKA_BROKERS, logger });
  const merchantChanges = listenToMerchantChanges(broker.kafka, parts.rateCardCache, logger);
  merchantChanges.startInBackground();
  await runService({
    name: "pricing",
    config,
    logger,
    serviceNames: SERVICE_NAMES,
    routes: parts.routes,
    checks: parts.checks,
    metrics: parts.metrics,
    closers: [{ name: "merchant-changes", close: () => merchantChanges.stop() }, broker, ...parts.closers],
  });
} catch (err) {
  logger.fatal({ err }, "pricing service failed to start");
  process.exit(1);
}
