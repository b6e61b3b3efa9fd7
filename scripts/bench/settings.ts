/**
 * What `make bench BENCH_ARGS="..."` may choose. Every default is what the issue measures with:
 * 8 connections, interleaved rounds of a fixed duration, 100k shipments to list, 10,000 waiting.
 */
export interface BenchSettings {
  /** Concurrent keep-alive connections of the load driver. */
  readonly connections: number;
  /** Duration of one round against one target. */
  readonly roundSeconds: number;
  /** Rounds per target, interleaved (mesh, baseline, mesh, baseline, ...). */
  readonly rounds: number;
  /** Unrecorded load against each target before its first round. */
  readonly warmupSeconds: number;
  /** Scenario names to run; undefined runs them all. */
  readonly scenarios: readonly string[] | undefined;
  /** Shipments of the bench merchant seeded for the list scenarios. */
  readonly listShipments: number;
  /** Shipments left waiting for a driver during the idle measurement. */
  readonly waitingShipments: number;
  readonly idleSettleSeconds: number;
  readonly idleSeconds: number;
  /** Statements per measurement of the Prisma overhead micro-scenario. */
  readonly prismaStatements: number;
  /** Parts that can be skipped: idle, prisma, warm-start, profile (the profiled extra round of each scenario), floor (the design floor's rounds). */
  readonly skip: ReadonlySet<string>;
  /** Fixed ports instead of free ones (the mesh's are consecutive from firstServicePort). */
  readonly gatewayPort: number | undefined;
  readonly firstServicePort: number | undefined;
  readonly kafkaPort: number | undefined;
}

export const DEFAULTS: BenchSettings = {
  connections: 8,
  roundSeconds: 6,
  rounds: 3,
  warmupSeconds: 1,
  scenarios: undefined,
  listShipments: 100_000,
  waitingShipments: 10_000,
  idleSettleSeconds: 10,
  idleSeconds: 20,
  prismaStatements: 1_000,
  skip: new Set(),
  gatewayPort: undefined,
  firstServicePort: undefined,
  kafkaPort: undefined,
};

const SKIPPABLE = new Set(["idle", "prisma", "warm-start", "profile", "floor"]);

export const USAGE = `make bench BENCH_ARGS="[options]"
  --scenarios a,b,...     only these scenarios (create, create-paced, estimate, read, list-first, list-deep, tracking, tracking-freshness, webhook-fanout, webhook-burst)
  --seconds N             seconds per round (default ${DEFAULTS.roundSeconds})
  --rounds N              rounds per target (default ${DEFAULTS.rounds})
  --connections N         concurrent connections (default ${DEFAULTS.connections})
  --warmup N              warm-up seconds per target (default ${DEFAULTS.warmupSeconds})
  --list-shipments N      shipments seeded for the list scenarios (default ${DEFAULTS.listShipments})
  --waiting N             shipments waiting for a driver while idle (default ${DEFAULTS.waitingShipments})
  --idle-seconds N        idle measurement window (default ${DEFAULTS.idleSeconds}; settles ${DEFAULTS.idleSettleSeconds} s first)
  --prisma-statements N   statements per Prisma-vs-pg measurement (default ${DEFAULTS.prismaStatements})
  --skip idle,prisma,warm-start,profile,floor   (profile: the extra round of each scenario with CPU profiles;
                                          floor: the design floor's rounds beside estimate, read and tracking)
  --gateway-port N --first-service-port N --kafka-port N   fixed ports (default: free ones)`;

/** Parses BENCH_ARGS; throws with the usage on anything unknown or malformed. */
export function parseSettings(args: readonly string[]): BenchSettings {
  const out: { -readonly [K in keyof BenchSettings]: BenchSettings[K] } = { ...DEFAULTS, skip: new Set() };
  const rest = [...args];
  while (rest.length > 0) {
    const flag = rest.shift()!;
    const [name, inline] = flag.includes("=") ? [flag.slice(0, flag.indexOf("=")), flag.slice(flag.indexOf("=") + 1)] : [flag, undefined];
    const value = () => {
      const v = inline ?? rest.shift();
      if (v === undefined || v === "") throw new Error(`${name} needs a value\n${USAGE}`);
      return v;
    };
    const count = (min: number) => {
      const v = value();
      const n = Number(v);
      if (!Number.isFinite(n) || n < min) throw new Error(`${name} ${v}: expected a number >= ${min}\n${USAGE}`);
      return n;
    };
    const list = () => value().split(",").map((s) => s.trim()).filter(Boolean);
    switch (name) {
      case "--scenarios": out.scenarios = list(); break;
      case "--seconds": out.roundSeconds = count(0.5); break;
      case "--rounds": out.rounds = Math.round(count(1)); break;
      case "--connections": out.connections = Math.round(count(1)); break;
      case "--warmup": out.warmupSeconds = count(0); break;
      case "--list-shipments": out.listShipments = Math.round(count(100)); break;
      case "--waiting": out.waitingShipments = Math.round(count(0)); break;
      case "--idle-seconds": out.idleSeconds = count(1); break;
      case "--prisma-statements": out.prismaStatements = Math.round(count(10)); break;
      case "--skip":
        for (const part of list()) {
          if (!SKIPPABLE.has(part)) throw new Error(`--skip ${part}: expected some of ${[...SKIPPABLE].join(", ")}\n${USAGE}`);
          (out.skip as Set<string>).add(part);
        }
        break;
      case "--gateway-port": out.gatewayPort = Math.round(count(1)); break;
      case "--first-service-port": out.firstServicePort = Math.round(count(1)); break;
      case "--kafka-port": out.kafkaPort = Math.round(count(1)); break;
      case "--help": case "-h": throw new Error(USAGE);
      default: throw new Error(`unknown option ${name}\n${USAGE}`);
    }
  }
  return out;
}
