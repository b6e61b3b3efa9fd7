import { METRICS_PORT_OFFSET, sidePort } from "@tawsil/config";
import { createKafka, kafkaConnection } from "@tawsil/events";
import { shutdownTracing, type Logger } from "@tawsil/logging";
import { createMetrics, drainOnSignals, processIdentity, startMetricsServer } from "@tawsil/rpc";
import { buildGateway } from "./app";
import { Revocations } from "./auth/revocations";
import type { GatewayConfig } from "./config";
import { listenToAccessRevocations } from "./consumers/access-revocations";

/**
 * The gateway's composition root, as main.ts runs it: the access revocations feed (in the
 * background: the gateway serves without the broker, and its readiness never waits on it), the
 * HTTP app, and the metrics port, drained in that order on SIGTERM. A failed listen rejects, and
 * runProcess logs it as fatal.
 */
export async function gatewayProcess(config: GatewayConfig, logger: Logger): Promise<void> {
  const metrics = createMetrics("gateway");
  // A token issued just before a revocation may live its lifetime plus the accepted skew.
  const tokenLifeMs = (config.TOKEN_TTL_SECONDS + config.TOKEN_CLOCK_SKEW_SECONDS) * 1000;
  const revocations = new Revocations(tokenLifeMs);
  const revocationFeed = listenToAccessRevocations({
    kafka: createKafka({ clientId: "gateway", logger, ...kafkaConnection(config) }),
    revocations,
    lookbackMs: tokenLifeMs,
    logger,
    registry: metrics.registry,
  });
  revocationFeed.startInBackground();

  // The gateway serves no RPC: it only signs its calls (in production, a missing key stops it here).
  const app = buildGateway({ config, logger, registry: metrics.registry, revocations, identity: processIdentity("gateway", config, logger).self });
  await app.listen({ host: config.HOST, port: config.PORT });
  // Prometheus reads the gateway on a port the ingress never routes to, so the internet cannot.
  const scrape = await startMetricsServer({ host: config.HOST, port: sidePort(config.PORT, config.METRICS_PORT, METRICS_PORT_OFFSET), registry: metrics.registry });
  logger.info({ url: `http://${config.HOST}:${config.PORT}`, metricsUrl: scrape.url, environment: config.TAWSIL_ENVIRONMENT }, "listening");
  drainOnSignals(
    logger,
    [
      { name: "http", close: () => app.close() },
      { name: "access-revocations", close: () => revocationFeed.stop() },
      { name: "metrics", close: () => scrape.close() },
      // Last: the drained requests' spans are batched until then.
      { name: "tracing", close: shutdownTracing },
    ],
    config.SHUTDOWN_GRACE_MS + 5_000,
  );
}
