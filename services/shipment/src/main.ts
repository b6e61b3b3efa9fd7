// Composition root of the shipment service: configuration, then infrastructure, then the server.
import { withTransaction } from "@tawsil/db";
import { connectKafka, startOutboxRelay } from "@tawsil/events";
import { createLogger, initTracing } from "@tawsil/logging";
import { runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { listenToMerchantChanges } from "./consumers/merchant-changes";
import { composeShipmentService, SERVICE_NAMES } from "./server";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "shipment", level: config.LOG_LEVEL });

try {
  const parts = composeShipmentService(config, logger);
  const broker = connectKafka({ clientId: "shipment", brokers: config.KAFKA_BROKERS, logger });
  // The relay holds its transaction while the broker acknowledges a batch: allow for broker retries.
  const relay = await startOutboxRelay({
    kafka: broker.kafka,
    logger,
    runInTransaction: (fn) => withTransaction(parts.database.client, fn, { timeoutMs: 30_000 }),
    databaseUrl: config.DATABASE_URL,
    // Its lag on the service's /metrics (outbox_oldest_unsent_age_seconds, the OutboxLag alert).
    registry: parts.metrics.registry,
  });
  const merchantChanges = listenToMerchantChanges(broker.kafka, parts.merchantCache, logger);
  merchantChanges.startInBackground();
  await runService({
    name: "shipment",
    config,
    logger,
    metrics: parts.metrics,
    routes: parts.routes,
    serviceNames: SERVICE_NAMES,
    checks: [...parts.checks, broker.readiness],
    closers: [{ name: "merchant-changes", close: () => merchantChanges.stop() }, relay, broker, ...parts.closers],
  });
} catch (err) {
  logger.fatal({ err }, "shipment service failed to start");
  process.exit(1);
}
