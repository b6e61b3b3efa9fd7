/** Everything one `make bench` measured: written as .bench/results.json and rendered from there. */
import type { IdleFigure } from "../idle";
import type { OverheadRow } from "../prisma-overhead";
import type { ProcessProfile } from "../profiler";
import type { ScenarioResult } from "../scenarios/scenario";

export interface MachineFacts {
  readonly date: string;
  readonly commit: string;
  readonly dirty: boolean;
  readonly cores: number;
  readonly cpuModel: string;
  readonly node: string;
  /** Load average when the bench started: other work on the machine skews every figure. */
  readonly loadAverage: readonly number[];
}

export interface IdleResults {
  readonly waitingShipments: number;
  /** Dispatch jobs by state during the window, as dispatch's database held them. */
  readonly jobsByState: Record<string, number> | undefined;
  readonly settleSeconds: number;
  readonly seconds: number;
  readonly processes: readonly IdleFigure[];
  /** The gateway and the six services. */
  readonly sevenCpuPercent: number;
  readonly sevenRssBytes: number;
  /** The seven plus the Kafka broker. */
  readonly meshRssBytes: number;
  /** The simulated drivers' long polls for offers the gateway answered during the window (driver-polls.ts). */
  readonly driverPolls?: number;
  /** A window as long, after the figures, with each Node process profiled (none with --skip profile). */
  readonly profiles?: readonly ProcessProfile[];
  /**
   * A last window as long with the fleet stopped, its drivers on shift and silent: the seven on
   * their own, and the design floor's Node processes idle beside them (when the floor runs).
   */
  readonly withoutFleet?: {
    readonly processes: readonly IdleFigure[];
    readonly sevenCpuPercent: number;
    readonly floor?: readonly IdleFigure[];
    /** A window as long after its figures, each of the seven profiled (none with --skip profile). */
    readonly profiles?: readonly ProcessProfile[];
  };
}

export interface StartupResults {
  /** The bench's own first start, with fresh databases (migrations applied). */
  readonly firstStartSeconds: number;
  /** `make dev` from a warm checkout: a new process starting the stack on existing databases, to ready. */
  readonly warmStartSeconds?: number;
}

export interface BenchResults {
  readonly machine: MachineFacts;
  readonly settings: Record<string, unknown>;
  readonly startup: StartupResults;
  readonly scenarios: readonly ScenarioResult[];
  readonly idle?: IdleResults;
  readonly prisma?: readonly OverheadRow[];
  readonly notes: readonly string[];
  readonly durationSeconds: number;
  /** Seconds since the start at which each part ended. */
  readonly timeline?: Record<string, number>;
}
