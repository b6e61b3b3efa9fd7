/**
 * Starts the gateway and the six services as separate processes against given infrastructure, then
 * the sandbox fleet (./fleet.ts), waits until each one's /readyz answers 200, and stops them all
 * again. `make dev` (scripts/dev.ts), `make bench` (scripts/bench) and the end-to-end tests all run
 * the mesh through this one module; `make soak` (scripts/soak/) runs it with two replicas of every
 * process but the fleet (MeshOptions.replicas).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FLEET, hasAdmin, IDENTITIES, ownsDatabase, SERVICES, type DatabaseServiceName, type ServiceName } from "@tawsil/topology";
import { generateIdentityKeys, identityEnvFor, type IdentityKeys } from "../../../rpc/src/identity-keys";
import { staleTargets } from "../bundles";
import { freePort } from "../free-port";
import { fleetDir, fleetEnv, fleetPorts, type FleetPorts } from "./fleet";
import { launch, stopAll, waitReady, type LaunchSpec, type RunningProcess } from "./process";
import { freeSidePorts, type SidePorts } from "./side-ports";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");

export interface MeshOptions {
  /** Database url per service that owns one (already migrated). */
  readonly databaseUrls: Record<DatabaseServiceName, string>;
  readonly kafkaBrokers: readonly string[];
  readonly gatewayPort: number;
  /** Ports of the services, in SERVICES order. */
  readonly servicePorts: readonly number[];
  /** Admin listeners and metrics ports. */
  readonly sidePorts: SidePorts;
  /** Each process writes its JSON log lines to `<logDir>/<name>.log`. */
  readonly logDir: string;
  /** Settings for every process (log level, environment). */
  readonly env?: Record<string, string>;
  /** Settings only one service receives (its secrets, above all). */
  readonly serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Settings only the gateway receives, applied last (a fault test points one peer url at a proxy). */
  readonly gatewayEnv?: Record<string, string>;
  readonly readyTimeoutMs?: number;
  readonly log?: (line: string) => void;
  /** Every identity's key pair (make dev keeps them in .dev/secrets.env); fresh ones otherwise. */
  readonly identityKeys?: IdentityKeys;
  /** Starts the sandbox fleet (services/sandbox-fleet) once the others are ready; default true. */
  readonly fleet?: boolean;
  /** Its ports; free ones otherwise. */
  readonly fleetPorts?: FleetPorts;
  /** Settings only the fleet receives (FLEET_FAILURE_RATE, say), applied last. */
  readonly fleetEnv?: Record<string, string>;
  /**
   * Instances of the gateway and of each service (the fleet stays one process); default 1. The
   * first runs on the ports given above, the others on free ones. There is no load balancer here:
   * the r-th replica of a process calls the r-th replica of its peers, so load spread over the
   * gateways spreads over every service; consumers of one group share the topics' partitions. The
   * gateways share their rate limits only when `env` names a Redis (RATE_LIMIT_REDIS_URL).
   */
  readonly replicas?: number;
}

export interface Mesh {
  /** The first gateway's. */
  readonly gatewayUrl: string;
  /** Every gateway replica's, the first's first. */
  readonly gatewayUrls: readonly string[];
  /** The key pairs the processes sign and verify service tokens with (mintServiceToken, for tests). */
  readonly identityKeys: IdentityKeys;
  readonly processes: readonly RunningProcess[];
  /** SIGTERM to every process, SIGKILL to any still alive after `graceMs`; resolves when all exited. */
  stop(graceMs?: number): Promise<void>;
  /** Stops one process and starts it again with the same settings (as a deploy would); resolves once it is ready. */
  restart(name: string): Promise<RunningProcess>;
}

export async function startMesh(opts: MeshOptions): Promise<Mesh> {
  const log = opts.log ?? (() => {});
  // Running stale bundles would test and serve old code without a word: refuse instead.
  const stale = staleTargets().map((target) => target.name);
  if (stale.length > 0) throw new Error(`stale or missing bundles (${stale.join(", ")}): run make build`);
  mkdirSync(opts.logDir, { recursive: true });
  // PUBLIC_BASE_URL: the gateway's address, which public links (tracking URLs) are built on.
  const common = { LOG_LEVEL: "info", TAWSIL_ENVIRONMENT: "sandbox", PUBLIC_BASE_URL: `http://localhost:${opts.gatewayPort}`, ...opts.env };
  // Every process signs its calls and checks its callers, as in a cluster.
  const identityKeys = opts.identityKeys ?? generateIdentityKeys(IDENTITIES);
  const replicaPorts: ReplicaPorts[] = [{ gateway: opts.gatewayPort, services: opts.servicePorts, sidePorts: opts.sidePorts }];
  for (let r = 1; r < (opts.replicas ?? 1); r++) replicaPorts.push(await freeReplicaPorts());
  const launches: LaunchSpec[] = replicaPorts.flatMap((ports, r) => replicaLaunches(opts, common, identityKeys, ports, r));
  const start = (spec: LaunchSpec) => launch(spec, opts.logDir);
  const processes: RunningProcess[] = launches.map(start);
  const mesh: Mesh = {
    gatewayUrl: `http://127.0.0.1:${opts.gatewayPort}`,
    gatewayUrls: replicaPorts.map((ports) => `http://127.0.0.1:${ports.gateway}`),
    identityKeys,
    processes,
    stop: (graceMs) => stopAll(processes, graceMs),
    async restart(name) {
      const at = processes.findIndex((p) => p.name === name);
      const spec = launches[at];
      if (!spec) throw new Error(`no process called ${name}`);
      await stopAll([processes[at]!]);
      const started = start(spec);
      processes[at] = started;
      await waitReady(started, opts.readyTimeoutMs ?? 90_000, log);
      return started;
    },
  };

  try {
    await Promise.all(processes.map((p) => waitReady(p, opts.readyTimeoutMs ?? 90_000, log)));
    // The fleet registers its drivers through the admin listeners and drives through the gateway: after them.
    if (opts.fleet ?? true) {
      const ports = await fleetPorts(opts.fleetPorts);
      const spec = { name: FLEET, replicaOf: FLEET, cwd: fleetDir(ROOT), port: ports.port, adminPort: undefined, metricsPort: ports.metricsPort, env: { ...common, ...fleetEnv(opts.gatewayPort, opts.sidePorts.admin, opts.fleetEnv) } };
      launches.push(spec);
      processes.push(start(spec));
      await waitReady(processes.at(-1)!, opts.readyTimeoutMs ?? 90_000, log);
    }
  } catch (err) {
    await mesh.stop();
    throw err;
  }
  return mesh;
}

/** The ports of one replica of every process but the fleet. */
interface ReplicaPorts {
  readonly gateway: number;
  /** In SERVICES order. */
  readonly services: readonly number[];
  readonly sidePorts: SidePorts;
}

async function freeReplicaPorts(): Promise<ReplicaPorts> {
  const services: number[] = [];
  for (const _ of SERVICES) services.push(await freePort());
  return { gateway: await freePort(), services, sidePorts: await freeSidePorts(freePort) };
}

/** The gateway and the six services of replica `r` (0 for the first), each calling its peers of the same replica. */
function replicaLaunches(opts: MeshOptions, common: Record<string, string>, identityKeys: IdentityKeys, ports: ReplicaPorts, r: number): LaunchSpec[] {
  const named = (name: string) => (r === 0 ? name : `${name}-${r + 1}`);
  const serviceUrls = Object.fromEntries(
    SERVICES.map((name, i) => [`${name.toUpperCase()}_SERVICE_URL`, `http://127.0.0.1:${port(ports.services, i)}`]),
  );
  const launches: LaunchSpec[] = SERVICES.map((name, i) => ({
    name: named(name),
    replicaOf: name,
    cwd: path.join(ROOT, "services", name),
    port: port(ports.services, i),
    adminPort: hasAdmin(name) ? ports.sidePorts.admin[name] : undefined,
    metricsPort: ports.sidePorts.metrics[name],
    env: {
      ...common,
      // Peers' addresses, for the services that call others (pricing, shipment, dispatch).
      ...serviceUrls,
      ...(ownsDatabase(name) ? { DATABASE_URL: opts.databaseUrls[name] } : {}),
      KAFKA_BROKERS: opts.kafkaBrokers.join(","),
      ...identityEnvFor(identityKeys, name),
      // Each webhook replica under a stable name, as a pod's: killed and started again, it takes back its claims.
      ...(name === "webhook" ? { WEBHOOK_REPLICA_ID: `webhook-${r}` } : {}),
      ...opts.serviceEnv?.[name],
    },
  }));
  launches.push({
    name: named("gateway"),
    replicaOf: "gateway",
    cwd: path.join(ROOT, "gateway"),
    port: ports.gateway,
    adminPort: undefined,
    metricsPort: ports.sidePorts.metrics.gateway,
    // The broker carries access revocations to the gateway.
    env: { ...common, ...serviceUrls, KAFKA_BROKERS: opts.kafkaBrokers.join(","), ...identityEnvFor(identityKeys, "gateway"), ...opts.gatewayEnv },
  });
  return launches;
}

function port(ports: readonly number[], i: number): number {
  const value = ports[i];
  if (value === undefined) throw new Error(`no port for ${SERVICES[i]}`);
  return value;
}

