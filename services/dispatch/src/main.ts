// Composition root of the dispatch service: configuration, then infrastructure, then the server.
import { withTransaction } from "@tawsil/db";
import { connectKafka, startOutboxRelay } from "@tawsil/events";
import { createLogger, initTracing } from "@tawsil/logging";
import { createMetrics, runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { composeDispatchService, SERVICE_NAMES, startDispatchWorkers } from "./server";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "dispatch", level: config.LOG_LEVEL });

try {
  const parts = await composeDispatchService(config, logger);
  const metrics = createMetrics("dispatch");
  const broker = connectKafka({ clientId: "dispatch", brokers: config.KAFKA_BROKERS, logger });
  // The relay holds its transaction while the broker acknowledges a batch: allow for broker retries.
  const relay = await startOutboxRelay({
    kafka: broker.kafka,
    logger,
    runInTransaction: (fn) => withTransaction(parts.database.client, fn, { timeoutMs: 30_000 }),
    databaseUrl: config.DATABASE_URL,
    // Its lag on the service's /metrics (outbox_oldest_unsent_age_seconds, the OutboxLag alert).
    registry: metrics.registry,
  });
  // The shipment event consumer, the dispatcher and (sandbox) the simulated fleet.
  const workers = await startDispatchWorkers(parts, config, logger, { kafka: broker.kafka });
  await runService({
    name: "dispatch",
    config,
    logger,
    metrics,
    serviceNames: SERVICE_NAMES,
    routes: parts.routes,
    checks: [...parts.checks, broker.readiness],
    closers: [...workers, relay, broker, ...parts.closers],
  });
} catch (err) {
  logger.fatal({ err }, "dispatch service failed to start");
  process.exit(1);
}
