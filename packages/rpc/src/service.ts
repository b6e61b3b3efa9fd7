import type { ConnectRouter } from "@connectrpc/connect";
import { ADMIN_PORT_OFFSET, METRICS_PORT_OFFSET, sidePort, type AdminEnv, type CommonEnv } from "@tawsil/config";
import type { Logger } from "@tawsil/logging";
import type { CallerCheck } from "./caller-check";
import { createMetrics, type Metrics } from "./metrics";
import { startMetricsServer } from "./metrics-server";
import { notFound } from "./probes";
import { Readiness, type ReadinessCheck } from "./readiness";
import { startRpcServer, type RpcServer } from "./server";
import { drainOnSignals, type Closer } from "./shutdown";

export interface ServiceSpec {
  /** The service's short name (merchant, shipment, ...): metric label and log field. */
  readonly name: string;
  /** ADMIN_HOST/ADMIN_PORT matter only to a service with `admin` RPCs. */
  readonly config: CommonEnv & Partial<AdminEnv>;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  readonly routes?: (router: ConnectRouter) => void;
  readonly serviceNames?: readonly string[];
  /** Who may call what (processIdentity's `callers`); undefined serves any caller (local runs only). */
  readonly callers?: CallerCheck | undefined;
  /**
   * Operators' RPCs, served only on the admin listener (ADMIN_HOST:ADMIN_PORT, loopback by
   * default) with the health protocol: the port peers reach answers them as unimplemented. No
   * service token is asked there: who can reach the loopback listener is the operator.
   */
  readonly admin?: { readonly routes: (router: ConnectRouter) => void; readonly serviceNames: readonly string[] };
  /** What /readyz and the health protocol report on. */
  readonly checks: readonly ReadinessCheck[];
  /** Stopped after the server has drained, in order: workers first, then clients and pools. */
  readonly closers: readonly Closer[];
}

/** A service running inside the caller's process, as tests and in-process stacks start it. */
export interface InProcessService {
  readonly url: string;
  /** The admin listener, when the service has admin RPCs. */
  readonly adminUrl: string | undefined;
  readonly metricsUrl: string;
  /** Drains the server for SHUTDOWN_GRACE_MS, then stops the closers in order. */
  close(): Promise<void>;
}

/** The listeners of one process: its service port, its admin port (when it has admin RPCs) and its metrics port. */
interface Listeners {
  readonly main: RpcServer;
  readonly admin: RpcServer | undefined;
  readonly metricsUrl: string;
  close(graceMs: number): Promise<void>;
}

async function listen(spec: ServiceSpec, readiness: Readiness): Promise<Listeners> {
  const { config } = spec;
  const metrics = spec.metrics ?? createMetrics(spec.name);
  const common = { logger: spec.logger, metrics, readiness };
  const opened: { close(graceMs: number): Promise<void> }[] = [];
  try {
    const main = await startRpcServer({ ...common, host: config.HOST, port: config.PORT, ...(spec.routes ? { routes: spec.routes } : {}), serviceNames: spec.serviceNames ?? [], callers: spec.callers });
    opened.push(main);
    let admin: RpcServer | undefined;
    if (spec.admin) {
      const port = sidePort(config.PORT, config.ADMIN_PORT, ADMIN_PORT_OFFSET);
      admin = await startRpcServer({ ...common, host: config.ADMIN_HOST ?? "127.0.0.1", port, routes: spec.admin.routes, serviceNames: spec.admin.serviceNames, fallback: notFound });
      opened.push(admin);
    }
    const scrape = await startMetricsServer({ host: config.HOST, port: sidePort(config.PORT, config.METRICS_PORT, METRICS_PORT_OFFSET), registry: metrics.registry });
    opened.push({ close: () => scrape.close() });
    return {
      main,
      admin,
      metricsUrl: scrape.url,
      close: async (graceMs) => void (await Promise.all(opened.map((listener) => listener.close(graceMs)))),
    };
  } catch (error) {
    // A port that is taken: what did open closes again, so the caller's error is the only trace.
    await Promise.all(opened.map((listener) => listener.close(0)));
    throw error;
  }
}

/**
 * The one shape every service runs in: serve RPCs and probes on PORT, admin RPCs on ADMIN_PORT,
 * metrics on METRICS_PORT, and on SIGTERM report not-ready, drain in-flight requests, then stop
 * workers and close connections.
 */
export async function runService(spec: ServiceSpec): Promise<void> {
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
  logger.info({ url: server.main.url, adminUrl: server.admin?.url, metricsUrl: server.metricsUrl, environment: config.TAWSIL_ENVIRONMENT }, "listening");
}

/**
 * The same service on HOST:PORT (port 0 picks a free one, and free ones for admin and metrics)
 * without signal handling, for tests. A server that cannot listen stops the closers before the
 * error is thrown, so no pool is left open.
 */
export async function startInProcess(spec: ServiceSpec): Promise<InProcessService> {
  const server = await listen(spec, new Readiness(spec.checks, spec.logger)).catch(async (error: unknown) => {
    await closeAll(spec.closers);
    throw error;
  });
  return {
    url: server.main.url,
    adminUrl: server.admin?.url,
    metricsUrl: server.metricsUrl,
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
  /** Operators' RPCs, for the admin listener only (ServiceSpec.admin). */
  readonly admin?: ServiceSpec["admin"];
  readonly checks: readonly ReadinessCheck[];
  readonly closers: readonly Closer[];
}
