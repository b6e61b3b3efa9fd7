/**
 * Checkouts of this repository in temp folders, each running `make dev` as a developer would, for
 * the test that two checkouts on one machine never break each other (checkouts.e2e.test.ts).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "vitest";
import { artefactDirFor, freePort, recordErrorAnswersFrom, watchProcessLogs } from "@tawsil/testing";
import { SERVICES } from "@tawsil/topology";
import { sidePortsFrom } from "@tawsil/testing/mesh";
import { buildTargets } from "../../../packages/testing/src/bundles";
import { prismaClientDirs } from "../../../packages/testing/src/prisma-configs";

const run = promisify(execFile);

/**
 * A clone of `root` at its HEAD, with the working tree's uncommitted changes copied over (a test
 * of the dev scripts must test them as they are edited), installed and built by the clone's own
 * Makefile: pnpm shares its store between checkouts, so this costs seconds, not downloads.
 */
export async function cloneCheckout(root: string, dir: string): Promise<void> {
  await run("git", ["clone", "--quiet", root, dir]);
  const { stdout } = await run("git", ["ls-files", "--modified", "--others", "--exclude-standard", "-z"], { cwd: root });
  for (const file of stdout.split("\0").filter(Boolean)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    try {
      copyFileSync(path.join(root, file), path.join(dir, file));
    } catch {
      // deleted in the working tree
    }
  }
  if (await isBuilt(root)) await reuseGeneratedFiles(root, dir);
  await run("make", ["install", "build"], { cwd: dir, env: cleanEnv({}), maxBuffer: 64 * 1024 * 1024 });
}

/** Whether `make install build` would do nothing in `root` (`make -q`: exit 0 when every target is current). */
async function isBuilt(root: string): Promise<boolean> {
  return run("make", ["-q", "install", "build"], { cwd: root, env: cleanEnv({}) }).then(
    () => true,
    () => false,
  );
}

/**
 * The clone has root's sources, so root's current Prisma clients and bundles are what its own
 * generate and build would write: they are copied in (with fresh times, newer than the clone's
 * sources) after its install, and its `make install build` then finds nothing to do. Generating
 * and bundling took about 25 s of CPU per clone, beside the other lane's mesh; the fresh clone
 * that CI runs still builds from nothing.
 */
async function reuseGeneratedFiles(root: string, dir: string): Promise<void> {
  await run("make", ["node_modules/.modules.yaml"], { cwd: dir, env: cleanEnv({}), maxBuffer: 64 * 1024 * 1024 });
  for (const client of prismaClientDirs(root)) cpSync(path.join(root, client), path.join(dir, client), { recursive: true });
  writeFileSync(path.join(dir, "node_modules", ".prisma-generated"), "");
  for (const target of buildTargets(root)) {
    const dist = path.dirname(target.outfile);
    cpSync(path.join(root, dist), path.join(dir, dist), { recursive: true });
  }
}

/** The ports a `make dev` is told to use, free when chosen. */
export interface DevPorts {
  readonly GATEWAY_PORT: number;
  readonly FIRST_SERVICE_PORT: number;
  readonly KAFKA_PORT: number;
  readonly KAFKA_CONTROLLER_PORT: number;
}

/** The ports one `make dev` numbers from FIRST_SERVICE_PORT: services, admin listeners, metrics (first..first+26). */
const DEV_PORT_BLOCK = 27;
const handedOutBlocks: number[] = [];

/** Free ports for one `make dev`: the six services take consecutive ports from FIRST_SERVICE_PORT. */
export async function freeDevPorts(): Promise<DevPorts> {
  for (;;) {
    const first = 20_000 + Math.floor(Math.random() * 10_000);
    // A block handed out before may be free only because its checkout is stopped for a while (the
    // test restarts checkout A while B runs): never give another checkout a block overlapping it.
    if (handedOutBlocks.some((other) => Math.abs(other - first) < DEV_PORT_BLOCK)) continue;
    // The services' ports and, numbered from the same first port, their admin and metrics ports.
    const side = sidePortsFrom(first);
    const ports = [...SERVICES.map((_, i) => first + i), ...Object.values(side.admin), ...Object.values(side.metrics)];
    const free = await Promise.all(ports.map(bindable));
    if (!free.every(Boolean)) continue;
    handedOutBlocks.push(first);
    return { GATEWAY_PORT: await freePort(), FIRST_SERVICE_PORT: first, KAFKA_PORT: await freePort(), KAFKA_CONTROLLER_PORT: await freePort() };
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The environment of a developer's shell: nothing of the outer `make test`, no namespace override. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  for (const name of ["MAKEFLAGS", "MAKELEVEL", "MFLAGS", "DEV_NAMESPACE", "DEV_DB_PREFIX", "NODE_OPTIONS"]) delete env[name];
  return env;
}

export interface DevRun {
  readonly child: ChildProcess;
  /** Everything `make dev` printed so far. */
  output(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  /**
   * Ctrl-C, as a terminal sends it: SIGINT to the whole process group (make itself then exits
   * "interrupted", by the signal). Resolves once make has exited and the dev script has said
   * "stopped" and exited too, or after 60 s; the caller checks what is left.
   */
  interrupt(): Promise<void>;
}

let devRuns = 0;

/**
 * `make dev` in `dir` in a process group of its own, with its output captured. Its processes' logs
 * (`.dev/logs`, which `make dev-reset` deletes) and its output are copied to
 * `.artefacts/<suite>/<test>/<checkout>-<n>/` when it stops, and a failed test's report reads them.
 */
export function makeDev(dir: string, env: Record<string, string>): DevRun {
  const child = spawn("make", ["dev"], { cwd: dir, env: cleanEnv(env), detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const artefacts = path.join(artefactDirFor(expect.getState().testPath), `${path.basename(dir)}-${++devRuns}`);
  const liveLogs = path.join(dir, ".dev", "logs");
  watchProcessLogs(liveLogs);
  watchProcessLogs(artefacts);
  if (env.GATEWAY_PORT) recordErrorAnswersFrom(`http://127.0.0.1:${env.GATEWAY_PORT}`);
  let text = "";
  child.stdout!.on("data", (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (text += chunk.toString()));
  const keepLogs = () => {
    mkdirSync(artefacts, { recursive: true });
    if (existsSync(liveLogs)) cpSync(liveLogs, artefacts, { recursive: true });
    writeFileSync(path.join(artefacts, "make-dev.out"), text);
  };
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      keepLogs();
      resolve(code);
    }),
  );
  return {
    child,
    output: () => text,
    exited,
    async interrupt() {
      if (child.exitCode !== null || child.signalCode !== null) return; // ended already (refused, or stopped before)
      process.kill(-child.pid!, "SIGINT");
      await exited;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && (!/\] stopped$/m.test(text) || processesIn(dir).length > 0)) await new Promise((r) => setTimeout(r, 200));
      keepLogs(); // what the processes wrote while stopping
    },
  };
}

/** Waits until `make dev` says it is running; rejects with its output when it exits first. */
export async function untilRunning(dev: DevRun, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!dev.output().includes("Tawsil is running")) {
    if (dev.child.exitCode !== null) throw new Error(`make dev exited (${dev.child.exitCode}):\n${dev.output()}`);
    if (Date.now() > deadline) throw new Error(`make dev not running after ${timeoutMs / 1000} s:\n${dev.output()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Processes (of this user) working in `dir` or below: a stopped `make dev` leaves none. */
export function processesIn(dir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) found.push(`${pid} ${readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").slice(0, 100)}`);
    } catch {
      // gone, or another user's
    }
  }
  return found;
}

/** The dotenv file `make dev` writes (.dev/credentials.env). */
export function credentialsOf(dir: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(path.join(dir, ".dev", "credentials.env"), "utf8")
      .split("\n")
      .filter((line) => /^[A-Z0-9_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

/** A token through the gateway `credentials.env` names, with its first merchant's client. */
export async function tokenThrough(credentials: Record<string, string>): Promise<{ status: number; token?: string }> {
  const basic = Buffer.from(`${credentials.TAWSIL_CLIENT_ID}:${credentials.TAWSIL_CLIENT_SECRET}`).toString("base64");
  const res = await fetch(`${credentials.TAWSIL_BASE_URL}/oauth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  const body = (await res.json()) as { access_token?: string };
  return { status: res.status, ...(body.access_token ? { token: body.access_token } : {}) };
}

/** `make dev-reset` in `dir`; resolves with its exit code and output. */
export async function makeDevReset(dir: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run("make", ["dev-reset"], { cwd: dir, env: cleanEnv(env) });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}
