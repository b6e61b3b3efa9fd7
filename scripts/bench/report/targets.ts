/** The targets next to this run's figures. */
import { meets, type Target } from "../stats";
import type { BenchResults } from "./results";

export interface TargetRow {
  readonly target: string;
  /** What the issue measured when it was filed (stop 20), for comparison; "–" where it gave none. */
  readonly filed: string;
  readonly figure: string;
  /** undefined: not measured in this run. */
  readonly met: boolean | undefined;
}

const GIB = 1024 ** 3;

export function targetRows(results: BenchResults): TargetRow[] {
  const byName = new Map(results.scenarios.map((s) => [s.name, s]));
  const scenarioRow = (name: string, label: string, filed: string, format: (v: number) => string): TargetRow => {
    const s = byName.get(name);
    if (!s || s.status !== "ran" || s.figure === undefined || !Number.isFinite(s.figure)) return { target: label, filed, figure: s?.reason ?? "not run", met: undefined };
    return { target: label, filed, figure: format(s.figure), met: s.met };
  };
  const x = (v: number) => `${v.toFixed(3)}x`;
  const row = (label: string, filed: string, value: number | undefined, target: Target, format: (v: number) => string): TargetRow =>
    value === undefined || !Number.isFinite(value) ? { target: label, filed, figure: "not run", met: undefined } : { target: label, filed, figure: format(value), met: meets(target, value) };
  return [
    scenarioRow("create", "create ≥ 0.4x the one-process baseline", "0.038x (23-39/s)", x),
    scenarioRow("create-paced", "create p99 ≤ 50 ms at half the mesh's max rate", "–", (v) => `${v.toFixed(1)} ms`),
    scenarioRow("estimate", "estimate ≥ 0.15x bare node:http", "0.013x (~200/s)", x),
    scenarioRow("read", "read by id ≥ 0.5x the one-process baseline", "0.13x", x),
    scenarioRow("list-deep", "deep list page ≤ 1.2x page 1", "–", x),
    row("idle CPU of the seven processes ≤ 5% of one core", "35-98%", results.idle?.sevenCpuPercent, { what: "cpu", op: "<=", value: 5 }, (v) => `${v.toFixed(1)}%`),
    row("idle RSS of the mesh (seven + broker) ≤ 1.2 GiB", "1.8 GiB", results.idle === undefined ? undefined : results.idle.meshRssBytes / GIB, { what: "rss", op: "<=", value: 1.2 }, (v) => `${v.toFixed(2)} GiB`),
    row("make dev, warm checkout, to ready ≤ 20 s", "–", results.startup.warmStartSeconds, { what: "start", op: "<=", value: 20 }, (v) => `${v.toFixed(1)} s`),
  ];
}

export const verdict = (met: boolean | undefined): string => (met === undefined ? "–" : met ? "yes" : "no");
