/**
 * Our stand-in for Ryuk (which cannot be pulled here): every container of a test run carries the
 * run's labels (`tawsil.test-run`, the owning pid, host and process start time), and
 *  - a detached reaper process per run watches the owning process and, once it is gone however it
 *    ended (teardown skipped by a crash, SIGKILL), removes the run's containers and exits;
 *  - each run's setup first sweeps containers of runs on this host whose owner is dead (a reaper
 *    that was itself killed), never those of a live run, such as another checkout's `make test`.
 *
 * CLI (started by spawnReaper, not by hand): reaper.ts <docker host> <run id> <owner pid> <owner start>
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { listContainers, removeContainer, removeRunContainers, RUN_HOST_LABEL, RUN_LABEL, RUN_PID_LABEL, RUN_START_LABEL, type EngineHost } from "./engine-api";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");

/** A process's start time (clock ticks since boot), so a reused pid is not taken for the owner; "" off Linux. */
export function processStart(pid: number): string {
  try {
    // Fields after the command name, which may itself hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? "";
  } catch {
    return "";
  }
}

export function ownerAlive(pid: number, start: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return start === "" || processStart(pid) === start;
}

/** The labels that tie a container to this run and its owning process. */
export function runLabels(runId: string, ownerPid = process.pid): Record<string, string> {
  return { [RUN_LABEL]: runId, [RUN_PID_LABEL]: String(ownerPid), [RUN_HOST_LABEL]: os.hostname(), [RUN_START_LABEL]: processStart(ownerPid) };
}

/** Removes the containers of runs on this host whose owning process is gone; returns how many. */
export async function sweepDeadRuns(host: EngineHost): Promise<number> {
  const candidates = await listContainers(host, [RUN_LABEL, `${RUN_HOST_LABEL}=${os.hostname()}`]);
  const dead = candidates.filter((c) => !ownerAlive(Number(c.Labels[RUN_PID_LABEL]), c.Labels[RUN_START_LABEL] ?? ""));
  await Promise.all(dead.map((c) => removeContainer(host, c.Id)));
  return dead.length;
}

export interface Reaper {
  /** Ends the reaper once the run has removed its containers itself. */
  stop(): void;
}

/** Starts the detached reaper of a run owned by this process. */
export function spawnReaper(host: EngineHost, runId: string): Reaper {
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), host, runId, String(process.pid), processStart(process.pid)], {
    cwd: REPO_ROOT, // where `--import tsx` resolves
    detached: true, // its own process group: a Ctrl-C to the run does not stop it before its work
    stdio: "ignore",
  });
  child.unref();
  return { stop: () => void (child.exitCode === null && child.kill("SIGTERM")) };
}

async function reap(host: EngineHost, runId: string, ownerPid: number, ownerStart: string): Promise<void> {
  while (ownerAlive(ownerPid, ownerStart)) await new Promise((r) => setTimeout(r, 1_000));
  // The engine may be busy (the run died mid-start): try for a while before giving up.
  for (let attempt = 1; attempt <= 10; attempt++) {
    try {
      await removeRunContainers(host, runId);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 3_000));
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [host, runId, pid, start] = process.argv.slice(2);
  if (!host || !runId || !pid) throw new Error("usage: reaper.ts <docker host> <run id> <owner pid> [owner start]");
  process.on("SIGTERM", () => process.exit(0));
  await reap(host, runId, Number(pid), start ?? "");
}
