/** A run's results for the report's tests: a create that misses its targets, a paced create, an unavailable scenario, idle and Prisma figures. */
import type { ScenarioResult } from "../scenarios/scenario";
import { medianOfRounds, type RoundFigures } from "../../../packages/testing/src/load/stats";
import type { BenchResults } from "./results";

export const round = (throughput: number, p50Ms: number, p99Ms: number): RoundFigures => ({ throughput, p50Ms, p99Ms, requests: throughput * 8, errors: 0, seconds: 8, clientCpuPercent: 10 });
export const figures = (...rounds: RoundFigures[]) => ({ rounds, median: medianOfRounds(rounds) });

export const SCENARIOS: ScenarioResult[] = [
  {
    name: "create",
    title: "create (shape A, unique key)",
    baselineTitle: "one process, raw pg",
    status: "ran",
    mesh: figures(round(30, 200, 450), round(32, 190, 400)),
    baseline: figures(round(750, 9, 20), round(800, 8, 18)),
    ratio: 31 / 775,
    target: { what: "mesh/baseline throughput", op: ">=", value: 0.4 },
    figure: 31 / 775,
    met: false,
    cpu: [
      { name: "gateway", duringMs: 2, afterMs: 0, wakeups: 4 },
      { name: "shipment", duringMs: 10, afterMs: 0.5, wakeups: 12 },
      { name: "dispatch", duringMs: 1, afterMs: 6.5, wakeups: 8 },
    ],
    profile: {
      requests: 200,
      seconds: 6,
      processes: [
        { name: "gateway", file: ".bench/profiles/create/gateway.cpuprofile", cpuMsPerRequest: 2.5, wallMs: 6000, busyMs: 400, owners: [{ name: "fastify", ms: 100 }, { name: "node:http2", ms: 60 }], functions: [{ name: "writev (node:net)", ms: 20 }] },
        { name: "shipment", file: ".bench/profiles/create/shipment.cpuprofile", cpuMsPerRequest: 11, wallMs: 6000, busyMs: 2000, owners: [{ name: "@prisma/client", ms: 500 }], functions: [{ name: "a|b (own code)", ms: 40 }] },
      ],
    },
  },
  { name: "create-paced", title: "create at half the mesh's max rate", status: "ran", rate: 15.5, mesh: figures(round(15.5, 30, 48)), target: { what: "p99", op: "<=", value: 50, unit: " ms" }, figure: 48, met: true },
  { name: "tracking", title: "public <tracking>", status: "unavailable", reason: "not available yet: GET /v2/public/tracking/{code} answers 404 RESOURCE_NOT_FOUND" },
];

export const RESULTS: BenchResults = {
  machine: { date: "2026-11-26T02:00:00.000Z", commit: "4b65e5b00000", dirty: true, cores: 2, cpuModel: "Test CPU", node: "v20.20.2", loadAverage: [1, 0.5, 0.25] },
  settings: { connections: 8, rounds: 2, roundSeconds: 8 },
  startup: { firstStartSeconds: 41.2, warmStartSeconds: 18.4 },
  scenarios: SCENARIOS,
  idle: {
    waitingShipments: 10_000,
    jobsByState: { WAITING: 5000, UNRESOLVED: 5000 },
    settleSeconds: 10,
    seconds: 20,
    processes: [
      { name: "gateway", pid: 11, cpuPercent: 0.5, rssBytes: 100 * 1024 ** 2, slices: [0.4, 0.6] },
      { name: "dispatch", pid: 12, cpuPercent: 6, rssBytes: 200 * 1024 ** 2, slices: [6, 6] },
      { name: "kafka broker", pid: 13, cpuPercent: 1, rssBytes: 1024 ** 3, slices: [1, 1] },
    ],
    sevenCpuPercent: 6.5,
    sevenRssBytes: 300 * 1024 ** 2,
    meshRssBytes: 1324 * 1024 ** 2,
  },
  prisma: [{ statement: "read by primary key", concurrency: 1, prisma: { wallUs: 400, cpuUs: 250 }, pg: { wallUs: 200, cpuUs: 80 }, wallRatio: 2, cpuRatio: 3.125 }],
  notes: ["a note"],
  durationSeconds: 330,
};
