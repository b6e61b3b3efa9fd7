// Composition root of the merchant service: configuration, then infrastructure, then the server.
import { createLogger, initTracing } from "@tawsil/logging";
import { runService } from "@tawsil/rpc";
import { readConfig } from "./config";
import { composeMerchantService, SERVICE_NAMES } from "./server";

const config = readConfig(process.env);
initTracing();
const logger = createLogger({ service: "merchant", level: config.LOG_LEVEL });

try {
  const parts = await composeMerchantService(config, logger);
  await runService({ name: "merchant", config, logger, serviceNames: SERVICE_NAMES, ...parts });
} catch (err) {
  logger.fatal({ err }, "merchant service failed to start");
  process.exit(1);
}
