// Composition root of the pricing service: configuration, then infrastructure, then the server.
import { createLogger, initTracing } from "@tawsil/logging";
import { runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { composePricingService, SERVICE_NAMES } from "./server";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "pricing", level: config.LOG_LEVEL });

try {
  const parts = await composePricingService(config, logger);
  await runService({ name: "pricing", config, logger, serviceNames: SERVICE_NAMES, ...parts });
} catch (err) {
  logger.fatal({ err }, "pricing service failed to start");
  process.exit(1);
}
