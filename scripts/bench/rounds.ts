/** Runs one scenario: warm-up, then interleaved rounds (mesh, baseline, mesh, ...), reporting each. */
import { KEPT_SHARES } from "./profiler";
import { cpuPerRequest, medianCpu, readTicks, readWakeups, type ProcessCpu, type Ticks } from "./cpu-budget";
import { closedLoop, paced, type RoundOutcome } from "../../packages/testing/src/load/driver";
import type { BenchContext, Prepared, Scenario, ScenarioProfile, ScenarioResult, TargetFigures } from "./scenarios/scenario";
import { medianOfRounds, meets, ratio, type RoundFigures } from "../../packages/testing/src/load/stats";

export function formatRound(f: RoundFigures): string {
  return `${f.throughput.toFixed(1).padStart(8)} req/s  p50 ${ms(f.p50Ms)}  p99 ${ms(f.p99Ms)}  errors ${f.errors}  client cpu ${f.clientCpuPercent.toFixed(0)}%`;
}

const ms = (v: number) => `${Number.isFinite(v) ? (v < 10 ? v.toFixed(2) : v.toFixed(1)) : "-"} ms`.padStart(9);

/** A scenario's figures, and the profiled round it can still run (after every other measurement). */
export interface ScenarioRun {
  readonly result: ScenarioResult;
  readonly profile?: () => Promise<ScenarioProfile | undefined>;
}

export async function runScenario(scenario: Scenario, ctx: BenchContext): Promise<ScenarioRun> {
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
    return { result: { ...base, status: "unavailable", reason: prepared.reason } };
  }

  // `before` sets a round up outside its measured window (and outside its profile).
  const runs: { label: "mesh" | "baseline"; go: (seconds: number) => Promise<RoundOutcome>; before?: () => Promise<void> }[] = [];
  const opts = (seconds: number) => ({ connections: settings.connections, seconds });
  const floor = prepared.kind === "load" && prepared.floor && ctx.floor ? prepared.floor : undefined;
  if (prepared.kind === "load") {
    const { mesh, baseline } = prepared;
    runs.push({ label: "mesh", go: (s) => closedLoop(mesh, opts(s)) });
    if (baseline) runs.push({ label: "baseline", go: (s) => closedLoop(baseline, opts(s)) });
  } else if (prepared.kind === "paced") {
    const { mesh, rate } = prepared;
    runs.push({ label: "mesh", go: (s) => paced(mesh, { ...opts(s), rate }) });
  } else {
    runs.push({ label: "mesh", go: () => prepared.measure(), ...(prepared.beforeRound ? { before: prepared.beforeRound } : {}) });
  }

  ctx.log(`${scenario.name}: ${scenario.title}${prepared.notes ? ` — ${prepared.notes}` : ""}`);
  if (settings.warmupSeconds > 0 && prepared.kind === "load") {
    for (const run of runs) await run.go(settings.warmupSeconds);
    if (floor) await closedLoop(floor, opts(settings.warmupSeconds));
  }
  const rounds: Record<"mesh" | "baseline" | "floor", RoundFigures[]> = { mesh: [], baseline: [], floor: [] };
  // The mesh's CPU per request: its processes read before and after each of its rounds, and again
  // after the baseline's round that follows (its asynchronous work catching up meanwhile). The
  // floor's round comes last, outside that window, read on its own processes.
  const cpuRounds: ProcessCpu[][] = [];
  const floorCpuRounds: ProcessCpu[][] = [];
  const watched = ctx.meshProcesses();
  const floorWatched = floor ? ctx.floorProcesses() : [];
  for (let r = 1; r <= settings.rounds; r++) {
    let meshRound: { before: Ticks; end: Ticks; wakeups: { before: Ticks; end: Ticks }; requests: number } | undefined;
    for (const run of runs) {
      await run.before?.();
      const wakeupsBefore = readWakeups(watched);
      const before = readTicks(watched);
      const outcome = await run.go(settings.roundSeconds);
      if (run.label === "mesh") meshRound = { before, end: readTicks(watched), wakeups: { before: wakeupsBefore, end: readWakeups(watched) }, requests: outcome.figures.requests };
      rounds[run.label].push(outcome.figures);
      logRound(ctx, r, run.label, outcome);
    }
    if (meshRound) {
      const after = runs.length > 1 ? { after: readTicks(watched) } : {};
      cpuRounds.push(cpuPerRequest(watched, { before: meshRound.before, end: meshRound.end, ...after, wakeups: meshRound.wakeups }, meshRound.requests));
    }
    if (floor) {
      const wakeupsBefore = readWakeups(floorWatched);
      const before = readTicks(floorWatched);
      const outcome = await closedLoop(floor, opts(settings.roundSeconds));
      await floor.settle?.();
      floorCpuRounds.push(cpuPerRequest(floorWatched, { before, end: readTicks(floorWatched), wakeups: { before: wakeupsBefore, end: readWakeups(floorWatched) } }, outcome.figures.requests));
      rounds.floor.push(outcome.figures);
      logRound(ctx, r, "floor", outcome);
    }
  }

  const figures = (list: RoundFigures[]): TargetFigures | undefined => (list.length ? { rounds: list, median: medianOfRounds(list) } : undefined);
  const mesh = figures(rounds.mesh);
  const baseline = figures(rounds.baseline);
  const floorFigures = figures(rounds.floor);
  const result: ScenarioResult = {
    ...base,
    ...(scenario.baselineTitle && baseline ? { baselineTitle: scenario.baselineTitle } : {}),
    status: "ran",
    ...(prepared.notes ? { notes: prepared.notes } : {}),
    ...(mesh ? { mesh } : {}),
    ...(baseline ? { baseline, ratio: ratio(mesh?.median.throughput, baseline.median.throughput) } : {}),
    ...(prepared.kind === "paced" ? { rate: prepared.rate } : {}),
    ...(cpuRounds.length ? { cpu: medianCpu(cpuRounds) } : {}),
    ...(floor && floorFigures ? { floor: { what: floor.what, figures: floorFigures, cpu: medianCpu(floorCpuRounds) } } : {}),
    ...(prepared.kind === "custom" && prepared.lags ? { lags: prepared.lags() } : {}),
  };
  const meshRun = runs[0]!;
  // A custom measurement is profiled only when its set-up stays out of the window (beforeRound).
  const profiled = ctx.profiler && (prepared.kind !== "custom" || meshRun.before);
  return {
    result: judge(scenario, result, ctx.results),
    ...(profiled ? { profile: () => profiledRound(scenario.name, meshRun, ctx) } : {}),
  };
}

function logRound(ctx: BenchContext, round: number, label: string, outcome: RoundOutcome): void {
  ctx.log(`  round ${round}/${ctx.settings.rounds}  ${label.padEnd(8)} ${formatRound(outcome.figures)}`);
  for (const failure of outcome.failures) ctx.log(`    failed: ${failure}`);
}

/**
 * One more round of the mesh, not counted in the figures, with every process's CPU profiled: what
 * its CPU per request is spent on. The profiler costs CPU while it runs and leaves memory behind
 * (V8 keeps the source positions it collected), so the bench runs these rounds last, after the
 * idle figures.
 */
async function profiledRound(label: string, run: { go: (seconds: number) => Promise<RoundOutcome>; before?: () => Promise<void> }, ctx: BenchContext): Promise<ScenarioProfile | undefined> {
  const profiler = ctx.profiler!;
  // Node processes only: the broker and PostgreSQL have no profiler to signal.
  const watched = ctx.meshProcesses().filter((p) => p.name !== "kafka broker" && p.pid !== undefined && !p.pids);
  try {
    await run.before?.();
    await profiler.start(watched);
    const before = readTicks(watched);
    const outcome = await run.go(ctx.settings.roundSeconds);
    const cpu = cpuPerRequest(watched, { before, end: readTicks(watched) }, outcome.figures.requests);
    const profiles = await profiler.stop(watched, label);
    ctx.log(`  profiled  mesh     ${formatRound(outcome.figures)}  (.bench/profiles/${label}/)`);
    return {
      requests: outcome.figures.requests,
      seconds: outcome.figures.seconds,
      processes: profiles.map((p) => ({
        ...p,
        cpuMsPerRequest: cpu.find((c) => c.name === p.name)?.duringMs ?? Number.NaN,
        owners: p.owners.slice(0, KEPT_SHARES),
        functions: p.functions.slice(0, KEPT_SHARES),
      })),
    };
  } catch (err) {
    ctx.log(`  profiling failed: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** Adds the target's figure and verdict to a result. */
export function judge(scenario: Scenario, result: ScenarioResult, results: ReadonlyMap<string, ScenarioResult>): ScenarioResult {
  if (!scenario.target) return result;
  const figure = scenario.figure ? scenario.figure(result, results) : (result.ratio ?? Number.NaN);
  const met = meets(scenario.target, figure);
  return { ...result, figure, ...(met === undefined ? {} : { met }) };
}
