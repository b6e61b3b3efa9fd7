// Composition root of the tracking service: configuration, then infrastructure, then the server.
import { connectKafka } from "@tawsil/events";
import { createLogger, initTracing } from "@tawsil/logging";
import { runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { startProjectionConsumer } from "./consumers/projection-consumer";
import { composeTrackingService, SERVICE_NAMES } from "./server";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "tracking", level: config.LOG_LEVEL });

try {
  const parts = composeTrackingService(config, logger);
  const broker = connectKafka({ clientId: "tracking", brokers: config.KAFKA_BROKERS, logger });
  const consumer = await startProjectionConsumer({ kafka: broker.kafka, db: parts.database.client, logger });
  await runService({
    name: "tracking",
    config,
    logger,
    routes: parts.routes,
    serviceNames: SERVICE_NAMES,
    checks: [...parts.checks, broker.readiness],
    closers: [consumer, broker, ...parts.closers],
  });
} catch (err) {
  logger.fatal({ err }, "tracking service failed to start");
  process.exit(1);
}
