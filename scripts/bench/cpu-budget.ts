/**
 * CPU per request, process by process: what bounds a path's throughput on a machine of N cores
 * (N x 1000 ms of CPU a second, shared by every process the request touches). Read from /proc
 * around each of the mesh's rounds.
 */
import type { WatchedProcess } from "./idle";
import { FLEET } from "../../packages/topology/src";
import { pidsWhoseCommand, sample, threadWakeups, ticksPerSecond } from "../../packages/testing/src/load/proc";
import { median } from "../../packages/testing/src/load/stats";

/**
 * utime + stime of each watched process, in clock ticks, by pid (a group has several; undefined
 * for a process that could not be read).
 */
export type Ticks = readonly (ReadonlyMap<number, number> | undefined)[];

export function readTicks(processes: readonly WatchedProcess[]): Ticks {
  return readEach(processes, (pid) => sample(pid)?.ticks);
}

/** Each watched process's thread wake-ups so far (proc.ts threadWakeups), by pid, in the shape of readTicks. */
export function readWakeups(processes: readonly WatchedProcess[]): Ticks {
  return readEach(processes, threadWakeups);
}

function readEach(processes: readonly WatchedProcess[], read: (pid: number) => number | undefined): Ticks {
  return processes.map((p) => {
    const pids = p.pids ? p.pids() : p.pid ? [p.pid] : [];
    const readings = new Map<number, number>();
    for (const pid of pids) {
      const value = read(pid);
      if (value !== undefined) readings.set(pid, value);
    }
    return p.pids || readings.size ? readings : undefined;
  });
}

/**
 * Ticks spent between two readings: each pid's growth, a pid new since the first reading counted
 * whole. A pid gone by the second reading takes its last ticks with it (a group then reads a
 * little low, never negative).
 */
export function ticksBetween(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let spent = 0;
  for (const [pid, ticks] of after) spent += ticks - (before.get(pid) ?? 0);
  return spent;
}

/**
 * The PostgreSQL backends serving the mesh's databases, as one process: their CPU is part of what
 * a request costs. A backend's title names its database ("postgres: 15/main: <user> <database>
 * <client> <state>"). Backends live as long as the services' pools, so the readings before and
 * after a round see the same ones.
 */
export function databaseBackends(databases: readonly string[]): WatchedProcess {
  const names = databases.map((name) => ` ${name} `);
  return { name: "postgresql", pid: undefined, pids: () => pidsWhoseCommand((command) => command.startsWith("postgres: ") && names.some((name) => command.includes(name))) };
}

export interface ProcessCpu {
  readonly name: string;
  /** CPU ms per request while the round ran. */
  readonly duringMs: number;
  /**
   * CPU ms per request spent after the round, until the next round of the mesh began (the
   * baseline's round in between): consumers, relays and the sandbox fleet catching up.
   */
  readonly afterMs?: number;
  /**
   * Its threads' wake-ups per request while the round ran (readWakeups): each a sleep that a
   * message, a reply or a timer ended, which costs the kernel's switch and cold caches whatever
   * the work woken for. Where a path's requests come one at a time, these rather than the work
   * itself set its CPU per request.
   */
  readonly wakeups?: number;
}

const ms = (before: ReadonlyMap<number, number> | undefined, after: ReadonlyMap<number, number> | undefined, requests: number, hz: number) =>
  before === undefined || after === undefined || requests <= 0 ? Number.NaN : ((ticksBetween(before, after) / hz) * 1000) / requests;

/** One round's CPU per request of each process, from readings before, at the end of and after the round (and its wake-ups, when read). */
export function cpuPerRequest(
  processes: readonly WatchedProcess[],
  readings: { before: Ticks; end: Ticks; after?: Ticks; wakeups?: { before: Ticks; end: Ticks } },
  requests: number,
  hz = ticksPerSecond(),
): ProcessCpu[] {
  const { wakeups } = readings;
  return processes.map((p, i) => ({
    name: p.name,
    duringMs: ms(readings.before[i], readings.end[i], requests, hz),
    ...(readings.after ? { afterMs: ms(readings.end[i], readings.after[i], requests, hz) } : {}),
    ...(wakeups ? { wakeups: perRequest(wakeups.before[i], wakeups.end[i], requests) } : {}),
  }));
}

const perRequest = (before: ReadonlyMap<number, number> | undefined, after: ReadonlyMap<number, number> | undefined, requests: number) =>
  before === undefined || after === undefined || requests <= 0 ? Number.NaN : ticksBetween(before, after) / requests;

/** Each process's median over the rounds. */
export function medianCpu(rounds: readonly (readonly ProcessCpu[])[]): ProcessCpu[] {
  const first = rounds[0];
  if (!first) return [];
  return first.map((p, i) => {
    const after = rounds.map((r) => r[i]?.afterMs).filter((v): v is number => v !== undefined);
    const wakeups = rounds.map((r) => r[i]?.wakeups).filter((v): v is number => v !== undefined);
    return {
      name: p.name,
      duringMs: median(rounds.map((r) => r[i]?.duringMs ?? Number.NaN)),
      ...(after.length ? { afterMs: median(after) } : {}),
      ...(wakeups.length ? { wakeups: median(wakeups) } : {}),
    };
  });
}

/** A figure that could not be read (NaN) or was not measured counts as nothing in a sum. */
const known = (ms: number | undefined) => (ms !== undefined && Number.isFinite(ms) ? ms : 0);

/** A process's CPU ms per request in and after the round. */
export const processMs = (p: ProcessCpu): number => known(p.duringMs) + known(p.afterMs);

/**
 * The sandbox's simulated drivers are a client of the mesh, like the load driver: their process is
 * measured and shown on its own, never in the product's figures (issue 30).
 */
export const isProduct = (p: { readonly name: string }): boolean => p.name !== FLEET;

/** The product's processes' thread wake-ups per request while the round ran; undefined when not read. */
export function wakeupsPerRequest(cpu: readonly ProcessCpu[]): number | undefined {
  const read = cpu.filter(isProduct).map((p) => p.wakeups);
  return read.some((w) => w !== undefined) ? read.reduce<number>((sum, w) => sum + (w !== undefined && Number.isFinite(w) ? w : 0), 0) : undefined;
}

/** What every process of the product spent after the round, per request. */
export const afterMs = (cpu: readonly ProcessCpu[]): number => cpu.filter(isProduct).reduce((sum, p) => sum + known(p.afterMs), 0);

/** Total CPU ms per request of the product's processes, and the throughput that much CPU allows on `cores` cores. */
export function ceiling(cpu: readonly ProcessCpu[], cores: number): { totalMs: number; maxPerSecond: number } {
  const totalMs = cpu.filter(isProduct).reduce((sum, p) => sum + processMs(p), 0);
  return { totalMs, maxPerSecond: totalMs > 0 ? (cores * 1000) / totalMs : Number.NaN };
}

/**
 * Waits until the product's processes together spend under `percent` of one core over a second
 * (consumers and relays done with what came before), or `maxSeconds` pass; says which.
 */
export async function settled(processes: readonly WatchedProcess[], percent: number, maxSeconds: number, hz = ticksPerSecond()): Promise<boolean> {
  const product = processes.filter(isProduct);
  for (let s = 0; s < maxSeconds; s++) {
    const before = readTicks(product);
    await new Promise((r) => setTimeout(r, 1000));
    const after = readTicks(product);
    const ticks = product.reduce((sum, _, i) => sum + (before[i] && after[i] ? ticksBetween(before[i]!, after[i]!) : 0), 0);
    if ((ticks / hz) * 100 < percent) return true;
  }
  return false;
}
