/**
 * CPU profiles of the mesh's processes over one round, through scripts/bench/profile-preload.mjs
 * (loaded into each process with NODE_OPTIONS): SIGUSR2 starts and stops V8's sampling profiler
 * in place, so nothing restarts and the measured rounds run without it.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import path from "node:path";
import type { WatchedProcess } from "./idle";
import { SourceMaps, summariseProfile, type CpuProfile, type ProfileSummary } from "./profile-summary";
import { ROOT } from "./setup";

const PRELOAD = path.join(ROOT, "scripts", "bench", "profile-preload.mjs");

/** Settings that make each process of the mesh answer SIGUSR2 with a profile in `dir`. */
export function profilerEnv(dir: string): Record<string, string> {
  const inherited = process.env.NODE_OPTIONS ? `${process.env.NODE_OPTIONS} ` : "";
  return { NODE_OPTIONS: `${inherited}--import ${PRELOAD}`, BENCH_PROFILE_DIR: dir };
}

/** Owners and functions kept per process in the results: the report shows the first few. */
export const KEPT_SHARES = 12;

export interface ProcessProfile extends ProfileSummary {
  readonly name: string;
  /** The .cpuprofile kept, relative to the checkout (open it in Chrome DevTools or speedscope). */
  readonly file: string;
}

export class MeshProfiler {
  /** Profiles taken so far per pid: the preload numbers its files 1, 2, ... */
  private readonly taken = new Map<number, number>();

  constructor(
    /** Where the preload writes (BENCH_PROFILE_DIR). */
    private readonly inbox: string,
    /** Where each profile is kept: <keep>/<label>/<process>.cpuprofile. */
    private readonly keep: string,
  ) {
    mkdirSync(inbox, { recursive: true });
  }

  async start(processes: readonly WatchedProcess[]): Promise<void> {
    for (const p of processes) if (p.pid) process.kill(p.pid, "SIGUSR2");
    // The inspector starts within milliseconds; this leaves room on a loaded machine.
    await new Promise((r) => setTimeout(r, 500));
  }

  /** Stops every profile, keeps the files under `label`, and sums each one up. */
  async stop(processes: readonly WatchedProcess[], label: string): Promise<ProcessProfile[]> {
    const expected = processes.filter((p) => p.pid).map((p) => {
      const n = (this.taken.get(p.pid!) ?? 0) + 1;
      this.taken.set(p.pid!, n);
      process.kill(p.pid!, "SIGUSR2");
      return { name: p.name, file: path.join(this.inbox, `${p.pid}-${n}.cpuprofile`) };
    });
    const dir = path.join(this.keep, label);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const maps = new SourceMaps();
    const out: ProcessProfile[] = [];
    for (const { name, file } of expected) {
      // Writing a profile of a few seconds takes well under a second; a process that died never writes.
      const deadline = Date.now() + 15_000;
      while (!existsSync(file) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (!existsSync(file)) continue;
      const kept = path.join(dir, `${name}.cpuprofile`);
      renameSync(file, kept);
      const profile = JSON.parse(readFileSync(kept, "utf8")) as CpuProfile;
      out.push({ name, file: path.relative(ROOT, kept), ...summariseProfile(profile, maps) });
    }
    return out;
  }
}
