import type { CommonEnv } from "@tawsil/config";
import { createLogger, initTracing, type Logger } from "@tawsil/logging";
import { runService, type ServiceSpec } from "./service";

/**
 * The process of a service, the same for every one (its src/main.ts): the configuration parsed
 * once from the environment (a bad value stops it before anything opens), tracing and logging,
 * then the service as its composition root (src/server.ts) assembles it, served until SIGTERM
 * drains it. A failure to start is logged and exits 1, so the orchestrator restarts it.
 */
export async function runMain<Config extends CommonEnv>(
  name: string,
  readConfig: (env: Record<string, string | undefined>) => Config,
  compose: (config: Config, logger: Logger) => Promise<ServiceSpec>,
): Promise<void> {
  const config = readConfig(process.env);
  initTracing();
  const logger = createLogger({ service: name, level: config.LOG_LEVEL });
  try {
    await runService(await compose(config, logger));
  } catch (err) {
    logger.fatal({ err }, `${name} service failed to start`);
    process.exit(1);
  }
}
