/**
 * Starts the gateway and the six services as separate processes against given infrastructure, then
 * the sandbox fleet (./fleet.ts), waits until each one's /readyz answers 200, and stops them all
 * again. `make dev` (scripts/dev.ts), `make bench` (scripts/bench) and the end-to-end tests all run
 * the mesh through this one module; `make soak` (scripts/soak/) and tests/e2e/replicas.e2e.test.ts
 * run it with two replicas of every process but the fleet (MeshOptions.replicas).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FLEET, hasAdmin, IDENTITIES, ownsDatabase, SERVICES, type DatabaseServiceName, type ServiceName } from "@tawsil/topology";
import { generateIdentityKeys, identityEnvFor, type IdentityKeys } from "../../../rpc/src/identity-keys";
import { staleTargets } from "../bundles";
import { fleetDir, fleetEnv, fleetPorts, type FleetPorts } from "./fleet";
import { MeshNames, peerName } from "./mesh-names";
import { launch, stopAll, waitReady, type LaunchSpec, type RunningProcess } from "./process";
import { type SidePorts } from "./side-ports";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..", "..", "..", "..");
const isService = (name: string): name is ServiceName => (SERVICES as readonly string[]).includes(name);

/** The loopback address replica `r` (0 for the first) of every process listens on. */
export const replicaHost = (r: number): string => `127.0.0.${r + 1}`;

/**
 * The pause before a service replica of a mesh with replicas is stopped, once it left its name:
 * the deploy's preStop hook (`sleep 5`, deploy/base), which covers the 5 s a caller may keep a
 * name's old addresses (packages/rpc's SpreadTransport resolves again every 5 s, as kube-dns caches).
 */
const PRE_STOP_MS = 5_000;

/** Loaded into every process of a mesh with replicas: resolves the names of MeshNames' file. */
const MESH_HOSTS_PRELOAD = path.join(HERE, "mesh-hosts.mjs");

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
   * Instances of the gateway and of each service (the fleet stays one process); default 1, at
   * most 2. Replica r listens on a loopback address of its own (replicaHost), every replica on
   * the ports given above. With replicas, a process calls each peer by a name that resolves to
   * its ready replicas' addresses (./mesh-names.ts), as a headless Service's name does in a
   * cluster: its calls spread over the peer's replicas, and leave one that restarts.
   * Consumers of one group share the topics' partitions. The gateways share their rate limits
   * only when `env` names a Redis (RATE_LIMIT_REDIS_URL).
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
  /**
   * Stops one process and starts it again, as a rollout replaces a pod: with the same settings, or
   * with `envChanges` over them (kept for its later restarts; an empty value unsets a setting);
   * resolves once it is ready.
   */
  restart(name: string, envChanges?: Record<string, string>): Promise<RunningProcess>;
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
  // Two loopback addresses and a name resolving to both (replicaHost, peerName): no more.
  if ((opts.replicas ?? 1) > 2) throw new Error("a mesh runs at most 2 replicas of a process");
  const replicas = Array.from({ length: opts.replicas ?? 1 }, (_, r) => r);
  const names = replicas.length > 1 ? new MeshNames(path.join(opts.logDir, "mesh-names.json")) : undefined;
  const launches: LaunchSpec[] = replicas.flatMap((r) => replicaLaunches(opts, common, identityKeys, r, names));
  const start = (spec: LaunchSpec) => launch(spec, opts.logDir);
  const processes: RunningProcess[] = launches.map(start);
  /** Ready, and listed under its service's name from then on (a gateway or the fleet has none). */
  const serving = async (p: RunningProcess) => {
    await waitReady(p, opts.readyTimeoutMs ?? 90_000, log);
    if (isService(p.replicaOf)) names?.list(p.replicaOf, new URL(p.url).hostname);
  };
  const mesh: Mesh = {
    gatewayUrl: `http://127.0.0.1:${opts.gatewayPort}`,
    gatewayUrls: replicas.map((r) => `http://${replicaHost(r)}:${opts.gatewayPort}`),
    identityKeys,
    processes,
    stop: (graceMs) => stopAll(processes, graceMs),
    async restart(name, envChanges = {}) {
      const at = processes.findIndex((p) => p.name === name);
      const spec = launches[at];
      if (!spec) throw new Error(`no process called ${name}`);
      // Out of its service's name first, as a terminating pod leaves its Service's endpoints, then
      // serving on through the pause of its preStop hook, while its callers resolve the name again.
      if (names && isService(spec.replicaOf)) {
        names.unlist(spec.replicaOf, spec.host ?? "127.0.0.1");
        await new Promise((resolve) => setTimeout(resolve, PRE_STOP_MS));
      }
      await stopAll([processes[at]!]);
      const env = Object.fromEntries(Object.entries({ ...spec.env, ...envChanges }).filter(([, value]) => value !== ""));
      launches[at] = { ...spec, env };
      const started = start(launches[at]);
      processes[at] = started;
      await serving(started);
      return started;
    },
  };

  try {
    await Promise.all(processes.map(serving));
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

/**
 * The gateway and the six services of replica `r` (0 for the first). With one replica each calls
 * its peers at their address; with more, by names resolving to their ready replicas (`names`).
 */
function replicaLaunches(opts: MeshOptions, common: Record<string, string>, identityKeys: IdentityKeys, r: number, names: MeshNames | undefined): LaunchSpec[] {
  const named = (name: string) => (r === 0 ? name : `${name}-${r + 1}`);
  const host = replicaHost(r);
  const peerHosts: Record<string, string> = names ? { MESH_HOSTS_FILE: names.file } : {};
  const serviceUrls = Object.fromEntries(
    SERVICES.map((name, i) => [`${name.toUpperCase()}_SERVICE_URL`, `http://${names ? peerName(name) : host}:${port(opts.servicePorts, i)}`]),
  );
  const placed = { host, ...(names ? { preload: MESH_HOSTS_PRELOAD } : {}) };
  const launches: LaunchSpec[] = SERVICES.map((name, i) => ({
    name: named(name),
    replicaOf: name,
    cwd: path.join(ROOT, "services", name),
    ...placed,
    port: port(opts.servicePorts, i),
    adminPort: hasAdmin(name) ? opts.sidePorts.admin[name] : undefined,
    metricsPort: opts.sidePorts.metrics[name],
    env: {
      ...common,
      ...peerHosts,
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
    ...placed,
    port: opts.gatewayPort,
    adminPort: undefined,
    metricsPort: opts.sidePorts.metrics.gateway,
    // The broker carries access revocations to the gateway.
    env: { ...common, ...peerHosts, ...serviceUrls, KAFKA_BROKERS: opts.kafkaBrokers.join(","), ...identityEnvFor(identityKeys, "gateway"), ...opts.gatewayEnv },
  });
  return launches;
}

function port(ports: readonly number[], i: number): number {
  const value = ports[i];
  if (value === undefined) throw new Error(`no port for ${SERVICES[i]}`);
  return value;
}

