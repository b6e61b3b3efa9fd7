/**
 * Starts the gateway and the six services as separate processes against given infrastructure, then
 * the sandbox fleet (scripts/mesh-fleet.ts), waits until each one's /readyz answers 200, and stops
 * them all again. `make dev` (scripts/dev.ts)
 * and the end-to-end tests both run the mesh through this one module; `make soak` (scripts/soak/)
 * runs it with two replicas of every process but the fleet (MeshOptions.replicas).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateIdentityKeys, identityEnvFor, type IdentityKeys } from "../packages/rpc/src/identity-keys";
import { freePort } from "../packages/testing/src/free-port";
import { staleTargets } from "./build";
import { fleetDir, fleetEnv, fleetPorts, type FleetPorts } from "./mesh-fleet";
import { ADMIN_SERVICES, FLEET, BUNDLE, hasAdmin, IDENTITIES, NODE_FLAGS, ownsDatabase, PROCESS_ENV, SERVICES, type AdminServiceName, type DatabaseServiceName, type ServiceName } from "../packages/topology/src";

// scripts/soak still takes SERVICES from here; the topology is declared in packages/topology.
export { SERVICES } from "../packages/topology/src";

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

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

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
  /** Stops one process and starts it again with the same settings (as a deploy would); resolves once it is ready. */
  restart(name: string): Promise<RunningProcess>;
}

export interface LaunchSpec {
  readonly name: string;
  readonly replicaOf: string;
  readonly cwd: string;
  readonly port: number;
  readonly adminPort: number | undefined;
  readonly metricsPort: number;
  readonly env: Record<string, string>;
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

export function launch({ name, replicaOf, cwd, port, adminPort, metricsPort, env }: LaunchSpec, logDir: string): RunningProcess {
  const logFile = path.join(logDir, `${name}.log`);
  const out = createWriteStream(logFile, { flags: "a" });
  // The compiled bundle (`make build`, scripts/build.ts), never the TypeScript through tsx: what
  // runs here is what the image runs. Source maps point stack traces at the TypeScript.
  const child = spawn(process.execPath, [...NODE_FLAGS, BUNDLE], {
    cwd,
    env: {
      ...PROCESS_ENV,
      ...process.env,
      ...env,
      HOST: "127.0.0.1",
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      ...(adminPort === undefined ? {} : { ADMIN_PORT: String(adminPort) }),
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
    url: `http://127.0.0.1:${port}`,
    adminUrl: adminPort === undefined ? undefined : `http://127.0.0.1:${adminPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
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
