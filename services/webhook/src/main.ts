// Composition root of the webhook service: configuration, then infrastructure, then the server.
import { connectKafka } from "@tawsil/events";
import { createLogger, initTracing } from "@tawsil/logging";
import { runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { composeWebhookService, SERVICE_NAMES, startWebhookWorkers } from "./server";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "webhook", level: config.LOG_LEVEL });

try {
  const parts = composeWebhookService(config, logger);
  const broker = connectKafka({ clientId: "webhook", brokers: config.KAFKA_BROKERS, logger });
  const workers = await startWebhookWorkers(parts, logger, { kafka: broker.kafka });
  await runService({
    name: "webhook",
    config,
    logger,
    metrics: parts.metrics,
    routes: parts.routes,
    serviceNames: SERVICE_NAMES,
    checks: [...parts.checks, broker.readiness],
    closers: [...workers, broker, ...parts.closers],
  });
} catch (err) {
  logger.fatal({ err }, "webhook service failed to start");
  process.exit(1);
}
