/** CPU time and resident memory of a process from Linux's /proc, for the idle figures. */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** utime + stime of /proc/<pid>/stat, in clock ticks. */
export function parseStatTicks(stat: string): number {
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself:
  // the fields that follow start after the last ')'.
  const close = stat.lastIndexOf(")");
  if (close < 0) throw new Error("not a /proc/<pid>/stat line");
  const fields = stat.slice(close + 2).trim().split(/\s+/);
  // fields[0] is field 3 (state); utime is field 14 and stime field 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error("no utime/stime in /proc/<pid>/stat");
  return utime + stime;
}

/** VmRSS of /proc/<pid>/status, in bytes (0 when absent, as for a zombie). */
export function parseStatusRssBytes(status: string): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** CPU use over an interval, as % of one core. */
export function cpuPercent(ticksBefore: number, ticksAfter: number, seconds: number, ticksPerSecond: number): number {
  return seconds > 0 ? ((ticksAfter - ticksBefore) / ticksPerSecond / seconds) * 100 : Number.NaN;
}

let clockTicks: number | undefined;

/** The kernel's USER_HZ (almost always 100). */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** voluntary_ctxt_switches of a /proc/<pid>/task/<tid>/status: the times that thread slept until woken (a message, a reply, a timer). */
export function parseVoluntarySwitches(status: string): number {
  const match = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status);
  return match ? Number(match[1]) : 0;
}

/**
 * Wake-ups of a live process so far: every thread's voluntary context switches, summed (each a
 * sleep that a socket, a timer or another thread ended). Undefined once it is gone. Threads that
 * ended meanwhile take their count with them: a reading can only be low, never high.
 */
export function threadWakeups(pid: number): number | undefined {
  try {
    let total = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        total += parseVoluntarySwitches(readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8"));
      } catch {
        // that thread ended meanwhile
      }
    }
    return total;
  } catch {
    return undefined;
  }
}

export interface ProcSample {
  readonly ticks: number;
  readonly rssBytes: number;
}

/** One reading of a live process; undefined once it is gone. */
export function sample(pid: number): ProcSample | undefined {
  try {
    return { ticks: parseStatTicks(readFileSync(`/proc/${pid}/stat`, "utf8")), rssBytes: parseStatusRssBytes(readFileSync(`/proc/${pid}/status`, "utf8")) };
  } catch {
    return undefined;
  }
}

/** Live pids whose command line passes `test` (PostgreSQL backends name their database in theirs). */
export function pidsWhoseCommand(test: (command: string) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (test(readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " "))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
