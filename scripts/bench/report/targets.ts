/** The issue's targets next to this run's figures. */
import { ceiling, processMs } from "../cpu-budget";
import type { ScenarioResult } from "../scenarios/scenario";
import { meets, ratio, type Target } from "../../../packages/testing/src/load/stats";
import type { BenchResults } from "./results";

/** One target of an issue beside this run's figure: a row of the targets tables (issue 9, issue 34). */
export interface TargetRow {
  readonly target: string;
  /** What the issue measured when it was filed, for comparison; "–" where it gave none. */
  readonly filed: string;
  readonly figure: string;
  /** undefined: not measured in this run. */
  readonly met: boolean | undefined;
  /** For a target not met: what bounds it (the CPU per request that caps a throughput, the profile that explains a budget). */
  readonly bound?: string;
}

/** A target judged on one figure of this run; `missing` stands in the figure's place when there is none. */
export function judgedRow(label: string, filed: string, value: number | undefined, target: Target, format: (v: number) => string, missing = "not run"): TargetRow {
  return value === undefined || !Number.isFinite(value) ? { target: label, filed, figure: missing, met: undefined } : { target: label, filed, figure: format(value), met: meets(target, value) };
}

const GIB = 1024 ** 3;

export function targetRows(results: BenchResults): TargetRow[] {
  const byName = new Map(results.scenarios.map((s) => [s.name, s]));
  const scenarioRow = (name: string, label: string, filed: string, format: (v: number) => string): TargetRow => {
    const s = byName.get(name);
    if (!s || s.status !== "ran" || s.figure === undefined || !Number.isFinite(s.figure)) return { target: label, filed, figure: s?.reason ?? "not run", met: undefined };
    const bound = s.met === false && s.target?.op === ">=" ? cpuBound(s, results.machine.cores) : undefined;
    return { target: label, filed, figure: format(s.figure), met: s.met, ...(bound ? { bound } : {}) };
  };
  const x = (v: number) => `${v.toFixed(3)}x`;
  return [
    scenarioRow("create", "create ≥ 0.4x the one-process baseline", "0.038x (23-39/s)", x),
    scenarioRow("create-paced", "create p99 ≤ 50 ms at half the mesh's max rate", "–", (v) => `${v.toFixed(1)} ms`),
    scenarioRow("estimate", "estimate ≥ 0.15x bare node:http", "0.013x (~200/s)", x),
    scenarioRow("read", "read by id ≥ 0.5x the one-process baseline", "0.13x", x),
    scenarioRow("list-deep", "deep list page ≤ 1.2x page 1", "–", x),
    scenarioRow("tracking-freshness", "create to tracking projection p99 ≤ 1000 ms (decisions.md section 9; cancel and max in the freshness table)", "23-67 ms, idle (issue 27)", (v) => `${v.toFixed(1)} ms`),
    judgedRow("idle CPU of the seven processes ≤ 5% of one core", "35-98%", results.idle?.sevenCpuPercent, { what: "cpu", op: "<=", value: 5 }, (v) => `${v.toFixed(1)}%`),
    judgedRow("idle RSS of the mesh (seven + broker) ≤ 1.2 GiB", "1.8 GiB", results.idle === undefined ? undefined : results.idle.meshRssBytes / GIB, { what: "rss", op: "<=", value: 1.2 }, (v) => `${v.toFixed(2)} GiB`),
    judgedRow("make dev, warm checkout, to ready ≤ 20 s", "–", results.startup.warmStartSeconds, { what: "start", op: "<=", value: 20 }, (v) => `${v.toFixed(1)} s`),
  ];
}

/**
 * "13.96 ms CPU per request (shipment 4.29, dispatch 2.81, tracking 1.63, ...): at most 143/s on
 * 2 cores = 0.068x": the ratio the mesh could reach if nothing but its own processes ran.
 */
function cpuBound(s: ScenarioResult, cores: number): string | undefined {
  if (!s.cpu?.length) return undefined;
  const { totalMs, maxPerSecond } = ceiling(s.cpu, cores);
  const perProcess = s.cpu.map((p) => ({ name: p.name, ms: processMs(p) })).sort((a, b) => b.ms - a.ms);
  const top = perProcess.slice(0, 3).map((p) => `${p.name} ${p.ms.toFixed(2)}`).join(", ");
  const best = ratio(maxPerSecond, s.baseline?.median.throughput);
  return `${totalMs.toFixed(2)} ms CPU per request (${top}${perProcess.length > 3 ? ", ..." : ""}): at most ${maxPerSecond.toFixed(0)}/s on ${cores} cores${Number.isFinite(best) ? ` = ${best.toFixed(3)}x` : ""}`;
}

export const verdict = (met: boolean | undefined): string => (met === undefined ? "–" : met ? "yes" : "no");
