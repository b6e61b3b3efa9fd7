/**
 * One process of the mesh: started from its compiled bundle with the house's flags and environment,
 * its output in a log file, ready once its /readyz answers 200, stopped with SIGTERM then SIGKILL.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BUNDLE, NODE_FLAGS, PROCESS_ENV } from "@tawsil/topology";

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

export async function stopAll(processes: readonly RunningProcess[], graceMs = 15_000): Promise<void> {
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
