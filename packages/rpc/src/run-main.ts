import type { CommonEnv } from "@tawsil/config";
import { createLogger, initTracing, shutdownTracing, type Logger } from "@tawsil/logging";
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
  initTracing({ serviceName: config.OTEL_SERVICE_NAME ?? name, endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const logger = createLogger({ service: name, level: config.LOG_LEVEL });
  try {
    const spec = await compose(config, logger);
    // Last: the spans of the drained requests and stopped workers are batched until then.
    await runService({ ...spec, closers: [...spec.closers, { name: "tracing", close: shutdownTracing }] });
  } catch (err) {
    logger.fatal({ err }, `${name} service failed to start`);
    process.exit(1);
  }
}
