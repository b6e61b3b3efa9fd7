/**
 * Starts the gateway and the six services as separate processes against given infrastructure, then
 * the sandbox fleet (scripts/mesh-fleet.ts), waits until each one's /readyz answers 200, and stops
 * them all again. `make dev` (scripts/dev.ts)
 * and the end-to-end tests both run the mesh through this one module; `make soak` (scripts/soak/)
 * and tests/e2e/replicas.e2e.test.ts run it with two replicas of every process but the fleet
 * (MeshOptions.replicas).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { generateIdentityKeys, identityEnvFor, type IdentityKeys } from "../packages/rpc/src/identity-keys";
import { staleTargets } from "./build";
import { FLEET, fleetDir, fleetEnv, fleetPorts, type FleetPorts } from "./mesh-fleet";
import { MeshNames, peerName } from "./mesh-names";

export const SERVICES = ["merchant", "shipment", "pricing", "dispatch", "tracking", "webhook"] as const;
export type ServiceName = (typeof SERVICES)[number];

/**
 * The services that own data, each in a database of its own. The others open none and count none
 * in their readiness: pricing's data (cities, service areas) ships with it in data/.
 */
export const SERVICES_WITH_DATABASE = ["merchant", "shipment", "dispatch", "tracking", "webhook"] as const satisfies readonly ServiceName[];
export type DatabaseServiceName = (typeof SERVICES_WITH_DATABASE)[number];

export const ownsDatabase = (name: ServiceName): name is DatabaseServiceName => (SERVICES_WITH_DATABASE as readonly ServiceName[]).includes(name);

/** The services with operators' RPCs, served on an admin listener of their own (ADMIN_PORT). */
export const ADMIN_SERVICES = ["merchant", "shipment", "dispatch", "tracking", "webhook"] as const satisfies readonly ServiceName[];
export type AdminServiceName = (typeof ADMIN_SERVICES)[number];
const hasAdmin = (name: ServiceName): name is AdminServiceName => (ADMIN_SERVICES as readonly ServiceName[]).includes(name);
const isService = (name: string): name is ServiceName => (SERVICES as readonly string[]).includes(name);

/** The ports beside each process's own: the admin listeners and every process's /metrics. */
export interface SidePorts {
  readonly admin: Readonly<Record<AdminServiceName, number>>;
  readonly metrics: Readonly<Record<ServiceName | "gateway", number>>;
}

/**
 * Side ports next to services numbered from `first` (make dev, a bench on fixed ports): the
 * admin listener of the service at first+i on first+10+i, its metrics on first+20+i, the
 * gateway's metrics on first+26. So FIRST_SERVICE_PORT alone moves a whole mesh.
 */
export function sidePortsFrom(first: number): SidePorts {
  const at = (name: ServiceName) => SERVICES.indexOf(name);
  return {
    admin: Object.fromEntries(ADMIN_SERVICES.map((name) => [name, first + 10 + at(name)])) as Record<AdminServiceName, number>,
    metrics: { ...Object.fromEntries(SERVICES.map((name, i) => [name, first + 20 + i])), gateway: first + 20 + SERVICES.length } as Record<ServiceName | "gateway", number>,
  };
}

/** Side ports each picked by `free` (tests and benches on free ports). */
export async function freeSidePorts(free: () => Promise<number>): Promise<SidePorts> {
  const admin: Record<string, number> = {};
  const metrics: Record<string, number> = {};
  for (const name of ADMIN_SERVICES) admin[name] = await free();
  for (const name of [...SERVICES, "gateway"]) metrics[name] = await free();
  return { admin, metrics } as SidePorts;
}

/** Kafka topics of the architecture; created before any service starts. */
export const TOPICS = [
  { topic: "shipment.shipment.events.v1", numPartitions: 3 },
  { topic: "dispatch.assignment.events.v1", numPartitions: 3 },
  { topic: "dispatch.driver-location.v1", numPartitions: 3 },
  { topic: "merchant.merchant.events.v1", numPartitions: 3 },
  // Compacted: the last message per city is its state, which pricing rebuilds from the beginning.
  { topic: "dispatch.city-staffing.v1", numPartitions: 3, compacted: true },
];

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * How every process runs, here as in the image: source maps point stack traces at the TypeScript.
 * A young generation of at most 2 x 4 MiB instead of V8's 2 x 16 MiB, which a process fills once
 * under load and keeps resident for good: about 20 MiB less per process, and no measurable change
 * in CPU per request (A/B of estimate and create, issue 9's notes).
 * Settings from NODE_OPTIONS (a profiler hook, say) still apply, as Node reads them itself.
 */
export const NODE_FLAGS = ["--enable-source-maps", "--max-semi-space-size=4"] as const;
/**
 * Environment every process runs with, here as in the image (Dockerfile ENV): glibc gives each
 * thread that allocates its own malloc arena (Node's libuv and V8 worker threads), and the arenas'
 * unused pages stay resident; two arenas cost nothing measurable in speed and about 10-20 MiB of
 * resident memory less per process (issue 9's idle RSS). A value already set in the environment wins.
 */
export const PROCESS_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };
/** Each process's bundle, relative to its directory (scripts/build.ts writes it). */
export const BUNDLE = "dist/main.mjs";

/** Who signs service tokens: the seven processes (drivers reach dispatch through the gateway's /v2/driver routes). */
export const IDENTITIES = ["gateway", ...SERVICES] as const;

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
   * its ready replicas' addresses (scripts/mesh-names.ts), as a headless Service's name does in a
   * cluster: its calls spread over the peer's replicas, and leave one that restarts.
   * Consumers of one group share the topics' partitions. The gateways share their rate limits
   * only when `env` names a Redis (RATE_LIMIT_REDIS_URL).
   */
  readonly replicas?: number;
}

export interface RunningProcess {
  /** The process's name (`gateway`, `merchant`); a further replica's carries its number (`merchant-2`). */
  readonly name: string;
  /** What it is an instance of: the name of its first replica. */
  readonly replicaOf: string;
  readonly url: string;
  /** Its admin listener (the services with ADMIN_SERVICES). */
  readonly adminUrl: string | undefined;
  readonly metricsUrl: string;
  /** Where its stdout and stderr go. */
  readonly logFile: string;
  /** Settles once the process has exited and its last output is in `logFile`. */
  readonly logWritten: Promise<void>;
  readonly child: ChildProcess;
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

export interface LaunchSpec {
  readonly name: string;
  readonly replicaOf: string;
  readonly cwd: string;
  /** The address it listens on; default 127.0.0.1. */
  readonly host?: string;
  readonly port: number;
  readonly adminPort: number | undefined;
  readonly metricsPort: number;
  readonly env: Record<string, string>;
  /** A module node loads before the bundle (--import). */
  readonly preload?: string;
}

/** The loopback address replica `r` (0 for the first) of every process listens on. */
export const replicaHost = (r: number): string => `127.0.0.${r + 1}`;

/**
 * The pause before a service replica of a mesh with replicas is stopped, once it left its name:
 * the deploy's preStop hook (`sleep 5`, deploy/base), which covers the 5 s a caller may keep a
 * name's old addresses (packages/rpc's SpreadTransport resolves again every 5 s, as kube-dns caches).
 */
const PRE_STOP_MS = 5_000;

/** Loaded into every process of a mesh with replicas: resolves the names of MeshNames' file. */
const MESH_HOSTS_PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), "mesh-hosts.mjs");

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

export function launch({ name, replicaOf, cwd, host = "127.0.0.1", port, adminPort, metricsPort, env, preload }: LaunchSpec, logDir: string): RunningProcess {
  const logFile = path.join(logDir, `${name}.log`);
  const out = createWriteStream(logFile, { flags: "a" });
  // The compiled bundle (`make build`, scripts/build.ts), never the TypeScript through tsx: what
  // runs here is what the image runs. Source maps point stack traces at the TypeScript.
  const child = spawn(process.execPath, [...NODE_FLAGS, ...(preload ? [`--import=${pathToFileURL(preload).href}`] : []), BUNDLE], {
    cwd,
    env: {
      ...PROCESS_ENV,
      ...process.env,
      ...env,
      HOST: host,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      ...(adminPort === undefined ? {} : { ADMIN_HOST: host, ADMIN_PORT: String(adminPort) }),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Both streams into one file, ended once the child's stdio closed: with pipe's own ending, the
  // stream that ended first would cut off the other's last lines (often the fatal one, on stderr).
  child.stdout?.pipe(out, { end: false });
  child.stderr?.pipe(out, { end: false });
  const logWritten = new Promise<void>((resolve) => {
    out.once("close", resolve);
    child.once("close", () => out.end());
  });
  return {
    name,
    replicaOf,
    url: `http://${host}:${port}`,
    adminUrl: adminPort === undefined ? undefined : `http://${host}:${adminPort}`,
    metricsUrl: `http://${host}:${metricsPort}`,
    logFile,
    logWritten,
    child,
  };
}

/** The last lines of a process's log, for an error that must explain itself where its run's files are gone (CI). */
function logTail(file: string, lines = 25): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

export async function waitReady(p: RunningProcess, timeoutMs: number, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const exited = new Promise<never>((_, reject) =>
    p.child.once("exit", (code) => {
      void p.logWritten.then(() => reject(new Error(`${p.name} exited with code ${code} before it was ready; its log ends:\n${logTail(p.logFile)}`)));
    }),
  );
  const poll = (async () => {
    while (Date.now() - started < timeoutMs) {
      try {
        const res = await fetch(`${p.url}/readyz`, { signal: AbortSignal.timeout(2000) });
        if (res.status === 200) {
          log(`${p.name.padEnd(9)} ready in ${((Date.now() - started) / 1000).toFixed(1)} s at ${p.url}`);
          return;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${p.name} not ready after ${timeoutMs / 1000} s; see its log`);
  })();
  await Promise.race([poll, exited]);
}

async function stopAll(processes: readonly RunningProcess[], graceMs = 15_000): Promise<void> {
  await Promise.all(
    processes.map(({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const force = setTimeout(() => child.kill("SIGKILL"), graceMs);
        child.once("exit", () => {
          clearTimeout(force);
          resolve();
        });
        child.kill("SIGTERM");
      });
    }),
  );
}
