/** Percentiles, medians and ratios of the bench: pure, so the report's arithmetic is tested. */

/** Nearest-rank percentile (`q` in 0..1) of values sorted ascending; NaN for none. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 === 1 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
}

/** a / b, NaN when either is missing or b is 0. */
export function ratio(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return Number.NaN;
  return a / b;
}

/** One round against one target: what the load driver saw. */
export interface RoundFigures {
  /** Successful responses per second. */
  readonly throughput: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Responses with an unexpected status, and transport failures. */
  readonly errors: number;
  readonly seconds: number;
  /** The load driver's own CPU over the round, % of one core. */
  readonly clientCpuPercent: number;
}

/** Summarises one round's latencies (milliseconds, any order; sorted in place). */
export function roundFigures(latenciesMs: number[], errors: number, seconds: number, clientCpuPercent: number): RoundFigures {
  latenciesMs.sort((a, b) => a - b);
  return {
    throughput: seconds > 0 ? latenciesMs.length / seconds : Number.NaN,
    p50Ms: percentile(latenciesMs, 0.5),
    p99Ms: percentile(latenciesMs, 0.99),
    requests: latenciesMs.length,
    errors,
    seconds,
    clientCpuPercent,
  };
}

export interface MedianFigures {
  readonly throughput: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly clientCpuPercent: number;
}

/** The median of each figure over the rounds (each figure on its own), errors summed. */
export function medianOfRounds(rounds: readonly RoundFigures[]): MedianFigures {
  return {
    throughput: median(rounds.map((r) => r.throughput)),
    p50Ms: median(rounds.map((r) => r.p50Ms)),
    p99Ms: median(rounds.map((r) => r.p99Ms)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    clientCpuPercent: median(rounds.map((r) => r.clientCpuPercent)),
  };
}

/** A target of the issue and whether a figure meets it. */
export interface Target {
  /** What is compared, e.g. "mesh/baseline throughput". */
  readonly what: string;
  readonly op: ">=" | "<=";
  readonly value: number;
  readonly unit?: string;
}

export function meets(target: Target, figure: number): boolean | undefined {
  if (!Number.isFinite(figure)) return undefined;
  return target.op === ">=" ? figure >= target.value : figure <= target.value;
}

export function describeTarget(target: Target): string {
  return `${target.op === ">=" ? "≥" : "≤"} ${target.value}${target.unit ?? "x"}`;
}

/** How long a change took to show in a projection: every sample of a run, pooled over its rounds. */
export interface LagFigures {
  /** What changed, e.g. "create to tracking projection". */
  readonly what: string;
  /** Changes seen in the projection. */
  readonly samples: number;
  /** Changes not seen within the scenario's deadline (counted in no percentile). */
  readonly missed: number;
  readonly p50Ms: number;
  readonly p95Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** decisions.md section 9: p99 <= 1 s and none over 2 s (a missed change is over 2 s); undefined without samples. */
  readonly met: boolean | undefined;
  /** What the reader should know about the samples (changes the mesh refused, say). */
  readonly note?: string;
}

/** The freshness promise of decisions.md section 9, in milliseconds. */
export const FRESHNESS = { p99Ms: 1000, maxMs: 2000 } as const;

export function lagFigures(what: string, lagsMs: readonly number[], missed: number): LagFigures {
  const sorted = [...lagsMs].sort((a, b) => a - b);
  const p99Ms = percentile(sorted, 0.99);
  const maxMs = sorted.length ? sorted[sorted.length - 1]! : Number.NaN;
  return {
    what,
    samples: sorted.length,
    missed,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    p99Ms,
    maxMs,
    met: sorted.length === 0 ? undefined : missed === 0 && p99Ms <= FRESHNESS.p99Ms && maxMs <= FRESHNESS.maxMs,
  };
}

/**
 * How far behind a schedule of `ratePerSecond` from `startMs` each arrival came: the i-th arrival
 * (in time order) is due at start + i / rate, and its lag is its arrival minus that, 0 when it came
 * early. Charging each event from its scheduled instant, as `paced` charges a request, gives a
 * backlog released at once the lags a steady arrival at that rate would see behind the same
 * deliveries: a path that keeps up shows lags near 0, one that does not shows lags that grow.
 */
export function lagsBehindSchedule(arrivalsMs: readonly number[], startMs: number, ratePerSecond: number): number[] {
  return [...arrivalsMs].sort((a, b) => a - b).map((at, i) => Math.max(0, at - (startMs + (i * 1000) / ratePerSecond)));
}
