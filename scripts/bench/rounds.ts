/** Runs one scenario: warm-up, then interleaved rounds (mesh, baseline, mesh, ...), reporting each. */
import { closedLoop, paced, type RoundOutcome } from "./driver";
import type { BenchContext, Prepared, Scenario, ScenarioResult, TargetFigures } from "./scenarios/scenario";
import { medianOfRounds, meets, ratio, type RoundFigures } from "./stats";

export function formatRound(f: RoundFigures): string {
  return `${f.throughput.toFixed(1).padStart(8)} req/s  p50 ${ms(f.p50Ms)}  p99 ${ms(f.p99Ms)}  errors ${f.errors}  client cpu ${f.clientCpuPercent.toFixed(0)}%`;
}

const ms = (v: number) => `${Number.isFinite(v) ? (v < 10 ? v.toFixed(2) : v.toFixed(1)) : "-"} ms`.padStart(9);

export async function runScenario(scenario: Scenario, ctx: BenchContext): Promise<ScenarioResult> {
  const { settings } = ctx;
  const base = { name: scenario.name, title: scenario.title, ...(scenario.target ? { target: scenario.target } : {}) };
  let prepared: Prepared;
  try {
    prepared = await scenario.prepare(ctx);
  } catch (err) {
    prepared = { kind: "unavailable", reason: `setting up failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (prepared.kind === "unavailable") {
    ctx.log(`${scenario.name}: ${prepared.reason}`);
    return { ...base, status: "unavailable", reason: prepared.reason };
  }

  const runs: { label: "mesh" | "baseline"; go: (seconds: number) => Promise<RoundOutcome> }[] = [];
  const opts = (seconds: number) => ({ connections: settings.connections, seconds });
  if (prepared.kind === "load") {
    const { mesh, baseline } = prepared;
    runs.push({ label: "mesh", go: (s) => closedLoop(mesh, opts(s)) });
    if (baseline) runs.push({ label: "baseline", go: (s) => closedLoop(baseline, opts(s)) });
  } else if (prepared.kind === "paced") {
    const { mesh, rate } = prepared;
    runs.push({ label: "mesh", go: (s) => paced(mesh, { ...opts(s), rate }) });
  } else {
    runs.push({ label: "mesh", go: () => prepared.measure() });
  }

  ctx.log(`${scenario.name}: ${scenario.title}${prepared.notes ? ` — ${prepared.notes}` : ""}`);
  if (settings.warmupSeconds > 0 && prepared.kind === "load") {
    for (const run of runs) await run.go(settings.warmupSeconds);
  }
  const rounds: Record<"mesh" | "baseline", RoundFigures[]> = { mesh: [], baseline: [] };
  for (let r = 1; r <= settings.rounds; r++) {
    for (const run of runs) {
      const outcome = await run.go(settings.roundSeconds);
      rounds[run.label].push(outcome.figures);
      ctx.log(`  round ${r}/${settings.rounds}  ${run.label.padEnd(8)} ${formatRound(outcome.figures)}`);
      for (const failure of outcome.failures) ctx.log(`    failed: ${failure}`);
    }
  }

  const figures = (list: RoundFigures[]): TargetFigures | undefined => (list.length ? { rounds: list, median: medianOfRounds(list) } : undefined);
  const mesh = figures(rounds.mesh);
  const baseline = figures(rounds.baseline);
  const result: ScenarioResult = {
    ...base,
    ...(scenario.baselineTitle && baseline ? { baselineTitle: scenario.baselineTitle } : {}),
    status: "ran",
    ...(prepared.notes ? { notes: prepared.notes } : {}),
    ...(mesh ? { mesh } : {}),
    ...(baseline ? { baseline, ratio: ratio(mesh?.median.throughput, baseline.median.throughput) } : {}),
    ...(prepared.kind === "paced" ? { rate: prepared.rate } : {}),
  };
  return judge(scenario, result, ctx.results);
}

/** Adds the target's figure and verdict to a result. */
export function judge(scenario: Scenario, result: ScenarioResult, results: ReadonlyMap<string, ScenarioResult>): ScenarioResult {
  if (!scenario.target) return result;
  const figure = scenario.figure ? scenario.figure(result, results) : (result.ratio ?? Number.NaN);
  const met = meets(scenario.target, figure);
  return { ...result, figure, ...(met === undefined ? {} : { met }) };
}
