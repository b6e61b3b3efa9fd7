import type { CommonEnv } from "@tawsil/config";
import { createLogger, initTracing, shutdownTracing, type Logger } from "@tawsil/logging";
import { runService, type ServiceSpec } from "./service";

/**
 * The shape of every process's src/main.ts: the configuration parsed once from the environment (a
 * bad value stops it before anything opens), tracing and logging, then `start`, which opens what
 * the process serves and resolves once it serves (draining on SIGTERM is its own). A failure to
 * start is logged as fatal and exits 1, so the orchestrator restarts it; nothing is left as an
 * unhandled rejection.
 */
export async function runProcess<Config extends CommonEnv>(
  name: string,
  readConfig: (env: Record<string, string | undefined>) => Config,
  start: (config: Config, logger: Logger) => Promise<void>,
  opts: { readonly tracesRatio?: (config: Config) => number | undefined } = {},
): Promise<void> {
  const config = readConfig(process.env);
  initTracing({ serviceName: config.OTEL_SERVICE_NAME ?? name, endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT, rootRatio: opts.tracesRatio?.(config) });
  const logger = createLogger({ service: name, level: config.LOG_LEVEL });
  try {
    await start(config, logger);
  } catch (err) {
    logger.fatal({ err }, `${name} failed to start`);
    process.exit(1);
  }
}

/**
 * The process of a service, the same for every one (its src/main.ts): runProcess with the service
 * as its composition root (src/server.ts) assembles it, served until SIGTERM drains it.
 */
export function runMain<Config extends CommonEnv>(
  name: string,
  readConfig: (env: Record<string, string | undefined>) => Config,
  compose: (config: Config, logger: Logger) => Promise<ServiceSpec>,
): Promise<void> {
  return runProcess(name, readConfig, async (config, logger) => {
    const spec = await compose(config, logger);
    // Last: the spans of the drained requests and stopped workers are batched until then.
    await runService({ ...spec, closers: [...spec.closers, { name: "tracing", close: shutdownTracing }] });
  });
}
