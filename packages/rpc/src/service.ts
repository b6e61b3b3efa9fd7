import type { ConnectRouter } from "@connectrpc/connect";
import type { CommonEnv } from "@tawsil/config";
import type { Logger } from "@tawsil/logging";
import type { CallerCheck } from "./caller-check";
import { createMetrics, type Metrics } from "./metrics";
import { Readiness, type ReadinessCheck } from "./readiness";
import { startRpcServer, type RpcServer } from "./server";
import { drainOnSignals, type Closer } from "./shutdown";

export interface ServiceSpec {
  /** The service's short name (merchant, shipment, ...): metric label and log field. */
  readonly name: string;
  readonly config: CommonEnv;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  readonly routes?: (router: ConnectRouter) => void;
  readonly serviceNames?: readonly string[];
  /** Who may call what (processIdentity's `callers`); undefined serves any caller (local runs only). */
  readonly callers?: CallerCheck | undefined;
  /** What /readyz and the health protocol report on. */
  readonly checks: readonly ReadinessCheck[];
  /** Stopped after the server has drained, in order: workers first, then clients and pools. */
  readonly closers: readonly Closer[];
}

/** A service running inside the caller's process, as tests and in-process stacks start it. */
export interface InProcessService {
  readonly url: string;
  /** Drains the server for SHUTDOWN_GRACE_MS, then stops the closers in order. */
  close(): Promise<void>;
}

function listen(spec: ServiceSpec, readiness: Readiness): Promise<RpcServer> {
  return startRpcServer({
    host: spec.config.HOST,
    port: spec.config.PORT,
    logger: spec.logger,
    metrics: spec.metrics ?? createMetrics(spec.name),
    readiness,
    ...(spec.routes ? { routes: spec.routes } : {}),
    serviceNames: spec.serviceNames ?? [],
    callers: spec.callers,
  });
}

/**
 * The one shape every service runs in: serve RPCs, probes and metrics on PORT, and on SIGTERM
 * report not-ready, drain in-flight requests, then stop workers and close connections.
 */
export async function runService(spec: ServiceSpec): Promise<RpcServer> {
  const { config, logger } = spec;
  const readiness = new Readiness(spec.checks, logger);
  const server = await listen(spec, readiness);
  drainOnSignals(
    logger,
    [
      { name: "readiness", close: async () => readiness.startDraining() },
      { name: "rpc-server", close: () => server.close(config.SHUTDOWN_GRACE_MS) },
      ...spec.closers,
    ],
    config.SHUTDOWN_GRACE_MS + 5_000,
  );
  logger.info({ url: server.url, environment: config.TAWSIL_ENVIRONMENT }, "listening");
  return server;
}

/**
 * The same service on HOST:PORT (port 0 picks a free one) without signal handling, for tests. A
 * server that cannot listen stops the closers before the error is thrown, so no pool is left open.
 */
export async function startInProcess(spec: ServiceSpec): Promise<InProcessService> {
  const server = await listen(spec, new Readiness(spec.checks, spec.logger)).catch(async (error: unknown) => {
    await closeAll(spec.closers);
    throw error;
  });
  return {
    url: server.url,
    async close() {
      await server.close(spec.config.SHUTDOWN_GRACE_MS);
      await closeAll(spec.closers);
    },
  };
}

async function closeAll(closers: readonly Closer[]): Promise<void> {
  for (const closer of closers) await closer.close();
}

/**
 * What every composition root (a service's src/server.ts) builds before anything listens: its
 * handlers, what its readiness reports on, and what to close, in shutdown order, after the server
 * has drained. Each service adds what its process wires around them (database, caches, workers).
 */
export interface ServiceParts {
  readonly routes: (router: ConnectRouter) => void;
  /** Who may call what: the process's allow-list with its callers' keys (processIdentity). */
  readonly callers?: CallerCheck | undefined;
  readonly checks: readonly ReadinessCheck[];
  readonly closers: readonly Closer[];
}
