/**
 * What a scenario is: how to load the mesh (and its baseline) once the bench is set up, or why it
 * cannot run yet. Adding one is one file in this folder plus its line in ./index.ts.
 */
import type { ProcessCpu } from "../cpu-budget";
import type { WatchedProcess } from "../idle";
import type { ProcessProfile, MeshProfiler } from "../profiler";
import type { DeepCursor } from "../seed/deep-cursor";
import type { Endpoint, RoundOutcome } from "../../../packages/testing/src/load/driver";
import type { BenchSettings } from "../settings";
import type { LagFigures, MedianFigures, RoundFigures, Target } from "../../../packages/testing/src/load/stats";

export interface BenchContext {
  readonly settings: BenchSettings;
  /** The mesh's gateway origin. */
  readonly gateway: string;
  /** Origins of the one-process baseline and the bare node:http server. */
  readonly baseline: string;
  readonly bare: string;
  /** The design floor (floor/edge.ts), when it runs: its edge's origin, and a wait for its consumers to catch up. */
  readonly floor: { readonly origin: string; caughtUp(): Promise<void> } | undefined;
  /** The bench merchant's access token (all scopes) and id. */
  readonly token: string;
  readonly merchantId: string;
  readonly savedLocationCode: string;
  /** Unique per run: references and idempotency keys never collide with an earlier run. */
  readonly run: string;
  /** Seeded shipment ids to read, in the mesh and in the baseline. */
  readonly meshReadIds: readonly string[];
  readonly baselineReadIds: readonly string[];
  readonly meshDeepCursor: DeepCursor | undefined;
  /** The tracking service's own database, which the freshness scenario watches. */
  readonly trackingDatabaseUrl: string | undefined;
  /** The webhook service's own database, where webhook-burst sees its backlog queued. */
  readonly webhookDatabaseUrl: string | undefined;
  readonly baselineDeepCursor: string | undefined;
  /** Results of the scenarios that ran before this one. */
  readonly results: ReadonlyMap<string, ScenarioResult>;
  /** The seven processes, the Kafka broker and the PostgreSQL backends of the mesh's databases, as running now. */
  meshProcesses(): WatchedProcess[];
  /** The design floor's two processes and the PostgreSQL backends of its database. */
  floorProcesses(): WatchedProcess[];
  /** Takes CPU profiles of the mesh over one extra round of each scenario, unless skipped. */
  readonly profiler: MeshProfiler | undefined;
  log(line: string): void;
}

export type Prepared =
  /**
   * Closed-loop rounds against the mesh, interleaved with the baseline's when there is one, and
   * with the design floor's (floor/edge.ts) for a path that is one call through it.
   */
  | { readonly kind: "load"; readonly mesh: Endpoint; readonly baseline?: Endpoint; readonly floor?: FloorEndpoint; readonly notes?: string }
  /** Rounds at a fixed request rate against the mesh only. */
  | { readonly kind: "paced"; readonly mesh: Endpoint; readonly rate: number; readonly notes?: string }
  /**
   * Rounds of a measurement of the scenario's own (deliveries, say) against the mesh only; lags,
   * read once the rounds are over, are the projections' freshness. `beforeRound` sets a round up
   * outside the measured window (its CPU is in no figure); a scenario that has one is also profiled.
   */
  | { readonly kind: "custom"; readonly measure: () => Promise<RoundOutcome>; readonly beforeRound?: () => Promise<void>; readonly notes?: string; readonly lags?: () => readonly LagFigures[] }
  | { readonly kind: "unavailable"; readonly reason: string };

export interface Scenario {
  readonly name: string;
  readonly title: string;
  /** What the baseline is, when there is one. */
  readonly baselineTitle?: string;
  /** The target, judged on `figure`. */
  readonly target?: Target;
  prepare(ctx: BenchContext): Promise<Prepared>;
  /** The figure judged against the target; by default mesh/baseline median throughput. */
  figure?(result: ScenarioResult, results: ReadonlyMap<string, ScenarioResult>): number;
}

export interface TargetFigures {
  readonly rounds: RoundFigures[];
  readonly median: MedianFigures;
}

export interface ScenarioResult {
  readonly name: string;
  readonly title: string;
  readonly baselineTitle?: string;
  readonly status: "ran" | "unavailable";
  readonly reason?: string;
  readonly notes?: string;
  readonly mesh?: TargetFigures;
  readonly baseline?: TargetFigures;
  /** Mesh/baseline median throughput. */
  readonly ratio?: number;
  readonly target?: Target;
  readonly figure?: number;
  readonly met?: boolean;
  /** Requests per second of a paced scenario. */
  readonly rate?: number;
  /** CPU per request of each process of the mesh (and the broker), medians over the rounds. */
  readonly cpu?: readonly ProcessCpu[];
  /** The profiled extra round. */
  readonly profile?: ScenarioProfile;
  /** The design floor's rounds: what the same path costs with nothing of the product's on it. */
  readonly floor?: FloorFigures;
  /** How long changes took to show in a projection (pooled over the rounds). */
  readonly lags?: readonly LagFigures[];
}

/**
 * The design floor's endpoint for a path, what its handler does there, and what to wait for
 * before its round's CPU is read (consumers applying what the round published).
 */
export type FloorEndpoint = Endpoint & { readonly what: string; readonly settle?: () => Promise<void> };

export interface FloorFigures {
  /** What the floor's handler does (floor/edge.ts), for the report. */
  readonly what: string;
  readonly figures: TargetFigures;
  /** CPU per request of the floor's edge, inner service and PostgreSQL backends, medians over the rounds. */
  readonly cpu: readonly ProcessCpu[];
}

export interface ScenarioProfile {
  readonly requests: number;
  readonly seconds: number;
  readonly processes: readonly (ProcessProfile & { readonly cpuMsPerRequest: number })[];
}

/** The `code` member of an RFC 9457 problem body, if any. */
export function problemCode(body: unknown): string | undefined {
  return typeof body === "object" && body !== null && typeof (body as { code?: unknown }).code === "string" ? (body as { code: string }).code : undefined;
}

/** Headers of an authenticated JSON request. */
export function authJson(ctx: BenchContext): Record<string, string> {
  return { authorization: `Bearer ${ctx.token}`, "content-type": "application/json" };
}
