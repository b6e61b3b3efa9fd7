/** Idle CPU and memory of the mesh's processes, read from /proc over a window. */
import { cpuPercent, sample, ticksPerSecond } from "../../packages/testing/src/load/proc";
import { median } from "../../packages/testing/src/load/stats";

export interface WatchedProcess {
  readonly name: string;
  readonly pid: number | undefined;
  /** A group of processes counted as one (the mesh's PostgreSQL backends), found anew at each reading. */
  readonly pids?: () => number[];
}

export interface IdleFigure {
  readonly name: string;
  readonly pid: number | undefined;
  /** % of one core over the window; NaN when the process could not be read. */
  readonly cpuPercent: number;
  /** Median VmRSS over the window. */
  readonly rssBytes: number;
  /** CPU % of each 5-second slice, to show a trend (a backlog being worked off, say). */
  readonly slices: readonly number[];
}

const SLICE_SECONDS = 5;

export async function measureIdle(processes: readonly WatchedProcess[], seconds: number): Promise<IdleFigure[]> {
  const hz = ticksPerSecond();
  const first = processes.map((p) => (p.pid ? sample(p.pid) : undefined));
  const rss: number[][] = processes.map(() => []);
  const sliceStart = first.map((s) => s?.ticks);
  const slices: number[][] = processes.map(() => []);
  const started = performance.now();
  let lastSlice = started;
  let last = first;
  for (let t = 1; t <= seconds; t++) {
    await new Promise((r) => setTimeout(r, Math.max(0, started + t * 1000 - performance.now())));
    last = processes.map((p) => (p.pid ? sample(p.pid) : undefined));
    last.forEach((s, i) => s && rss[i]!.push(s.rssBytes));
    if (t % SLICE_SECONDS === 0 || t === seconds) {
      const now = performance.now();
      last.forEach((s, i) => {
        const before = sliceStart[i];
        slices[i]!.push(s && before !== undefined ? cpuPercent(before, s.ticks, (now - lastSlice) / 1000, hz) : Number.NaN);
        sliceStart[i] = s?.ticks;
      });
      lastSlice = now;
    }
  }
  const elapsed = (performance.now() - started) / 1000;
  return processes.map((p, i) => {
    const a = first[i];
    const b = last[i];
    return {
      name: p.name,
      pid: p.pid,
      cpuPercent: a && b ? cpuPercent(a.ticks, b.ticks, elapsed, hz) : Number.NaN,
      rssBytes: median(rss[i]!),
      slices: slices[i]!,
    };
  });
}
