// Composition root of the merchant service: configuration, then infrastructure, then the server.
import { withTransaction } from "@tawsil/db";
import { connectKafka, startOutboxRelay } from "@tawsil/events";
import { createLogger, initTracing } from "@tawsil/logging";
import { createMetrics, runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { composeMerchantService, SERVICE_NAMES } from "./server";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "merchant", level: config.LOG_LEVEL });

try {
  const parts = await composeMerchantService(config, logger);
  const metrics = createMetrics("merchant");
  const broker = connectKafka({ clientId: "merchant", brokers: config.KAFKA_BROKERS, logger });
  // Merchant events (status, rate cards, places) keep other services' caches fresh.
  const relay = await startOutboxRelay({
    kafka: broker.kafka,
    logger,
    runInTransaction: (fn) => withTransaction(parts.database.client, fn, { timeoutMs: 30_000 }),
    databaseUrl: config.DATABASE_URL,
    // Its lag on the service's /metrics (outbox_oldest_unsent_age_seconds, the OutboxLag alert).
    registry: metrics.registry,
  });
  await runService({
    name: "merchant",
    config,
    logger,
    metrics,
    serviceNames: SERVICE_NAMES,
    routes: parts.routes,
    checks: [...parts.checks, broker.readiness],
    closers: [relay, broker, ...parts.closers],
  });
} catch (err) {
  logger.fatal({ err }, "merchant service failed to start");
  process.exit(1);
}
