/** .bench/report.md: the run's facts, then tables; the terminal prints the same summary. */
import { afterMs, ceiling, isProduct, processMs, wakeupsPerRequest, type ProcessCpu } from "../cpu-budget";
import { floorMs } from "./floor-line";
import { FLEET } from "../../../packages/topology/src";
import type { ScenarioResult, TargetFigures } from "../scenarios/scenario";
import { DEADLINE_MS, POLL_MS } from "../scenarios/tracking-freshness";
import { describeTarget, FRESHNESS } from "../../../packages/testing/src/load/stats";
import type { BenchResults } from "./results";
import { budgetRows } from "./budgets";
import { describeShares } from "./profile-line";
import { targetRows, verdict, type TargetRow } from "./targets";

const MIB = 1024 ** 2;
const n = (v: number | undefined, digits = 1) => (v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(digits));
const msCell = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? "–" : v < 10 ? `${v.toFixed(2)} ms` : `${v.toFixed(1)} ms`);
const table = (head: string[], rows: string[][]) => [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

/** The targets of an issue beside this run's figures; one shape for every issue's table. */
function targetTable(rows: readonly TargetRow[]): string {
  return table(["Target", "When filed", "This run", "Met", "What bounds it"], rows.map((r) => [r.target, r.filed, r.figure, verdict(r.met), r.bound ?? ""]));
}

function loadRow(s: ScenarioResult): string[] {
  if (s.status === "unavailable") return [s.title, s.reason ?? "not available", "", "", "", "", "", "", "", ""];
  const m = s.mesh?.median;
  const b = s.baseline?.median;
  const title = s.rate === undefined ? s.title : `${s.title} (${s.rate.toFixed(1)}/s)`;
  return [
    title,
    n(m?.throughput),
    msCell(m?.p50Ms),
    msCell(m?.p99Ms),
    s.baselineTitle ?? "–",
    b ? n(b.throughput) : "–",
    b ? msCell(b.p50Ms) : "–",
    b ? msCell(b.p99Ms) : "–",
    s.ratio === undefined ? "–" : `${s.ratio.toFixed(3)}x`,
    s.target ? `${describeTarget(s.target)} → ${s.figure === undefined ? "–" : n(s.figure, s.target.unit ? 1 : 3)}${s.target.unit ?? "x"} ${verdict(s.met)}` : "",
  ];
}

export function renderSummary(results: BenchResults): string {
  const parts: string[] = [];
  parts.push("## Targets (issue 9)\n");
  parts.push(targetTable(targetRows(results)));
  parts.push("\n## CPU budgets (issue 34)\n");
  parts.push(targetTable(budgetRows(results)));
  parts.push(
    `\nCPU per request: every process of the product, the Kafka broker and the PostgreSQL backends of the mesh's databases, while the round ran and after it (until the next mesh round: consumers and relays catching up; the create's consequences are counted there), medians over the rounds; the sandbox fleet runs through the idle windows only and is stopped before the scenarios, so none of its deliveries is in a path's figure (notes). Webhook delivery: per first attempt from the resume of a paused backlog to the last arrival (the consumer's routing of the event is in the create's figure). A target missed names the scenario's busiest processes and what its profiled round spent their main thread on; the links open the profiles (Chrome DevTools, speedscope).`,
  );
  parts.push("\n## Load: medians over the rounds\n");
  parts.push(
    table(
      ["Scenario", "Mesh req/s", "Mesh p50", "Mesh p99", "Baseline", "Baseline req/s", "Baseline p50", "Baseline p99", "Mesh/baseline", "Target"],
      results.scenarios.map(loadRow),
    ),
  );
  const freshness = freshnessTable(results);
  if (freshness) parts.push(freshness);
  const clientCpu = results.scenarios.flatMap((s) => [s.mesh?.median.clientCpuPercent, s.baseline?.median.clientCpuPercent]).filter((v): v is number => v !== undefined && Number.isFinite(v));
  if (clientCpu.length) parts.push(`\nLoad driver's own CPU: ${Math.min(...clientCpu).toFixed(0)}–${Math.max(...clientCpu).toFixed(0)}% of one core (medians per target).`);
  const budget = cpuBudgetTable(results);
  if (budget) parts.push(budget);
  const floors = floorTable(results);
  if (floors) parts.push(floors);
  if (results.idle) {
    const idle = results.idle;
    parts.push(`\n## Idle, before the load: fleet on, ${idle.waitingShipments.toLocaleString("en")} shipments waiting for a driver, ${idle.seconds} s after ${idle.settleSeconds} s of settling\n`);
    parts.push(
      table(
        ["Process", "CPU % of one core", "CPU % with the fleet stopped", "RSS MiB", "CPU % per 5 s", "Profiled window: main thread by owner", "Hottest functions (self time)", "Profile"],
        [
          ...idle.processes.map((p) => {
            const profile = idle.profiles?.find((q) => q.name === p.name);
            const shares = profile ? [describeShares(profile, "owners", 4), describeShares(profile, "functions", 3), `\`${profile.file}\``] : ["", "", ""];
            const quiet = idle.withoutFleet?.processes.find((q) => q.name === p.name)?.cpuPercent;
            return [p.name, n(p.cpuPercent), n(quiet), n(p.rssBytes / MIB, 0), p.slices.map((v) => n(v)).join(" "), ...shares];
          }),
          ["**the seven processes**", `**${n(idle.sevenCpuPercent)}**`, idle.withoutFleet ? `**${n(idle.withoutFleet.sevenCpuPercent)}**` : "–", `**${n(idle.sevenRssBytes / MIB, 0)}**`, "", "", "", ""],
          ["**seven + broker**", "", "", `**${n(idle.meshRssBytes / MIB, 0)}**`, "", "", "", ""],
        ],
      ),
    );
    if (idle.driverPolls !== undefined) parts.push(`\nThe simulated drivers' long polls for offers the gateway answered during the window: ${idle.driverPolls} (${(idle.driverPolls / idle.seconds).toFixed(1)}/s).`);
    if (idle.jobsByState) parts.push(`\nDispatch jobs by state during the window: ${Object.entries(idle.jobsByState).map(([k, v]) => `${k} ${v}`).join(", ")}.`);
  }
  parts.push("\n## Start-up\n");
  parts.push(
    table(
      ["Start", "Seconds to ready"],
      [
        ["the bench's first start (fresh databases, migrations)", n(results.startup.firstStartSeconds)],
        ["`make dev` equivalent, warm checkout (new process, existing databases)", n(results.startup.warmStartSeconds)],
      ],
    ),
  );
  if (results.prisma?.length) {
    parts.push("\n## Prisma 7 (pg adapter) vs raw pg, per statement\n");
    parts.push(
      table(
        ["Statement", "Concurrency", "Prisma µs", "pg µs", "Prisma/pg wall", "Prisma CPU µs", "pg CPU µs", "Prisma/pg CPU"],
        results.prisma.map((r) => [r.statement, String(r.concurrency), n(r.prisma.wallUs, 0), n(r.pg.wallUs, 0), `${n(r.wallRatio, 2)}x`, n(r.prisma.cpuUs, 0), n(r.pg.cpuUs, 0), `${n(r.cpuRatio, 2)}x`]),
      ),
    );
  }
  return parts.join("\n");
}

/** How long changes took to reach the projections, beside decisions.md section 9's promise. */
function freshnessTable(results: BenchResults): string | undefined {
  const measured = results.scenarios.filter((s) => s.lags?.length);
  if (!measured.length) return undefined;
  const target = `p99 ≤ ${FRESHNESS.p99Ms} ms, max ≤ ${FRESHNESS.maxMs} ms`;
  const rows = measured.flatMap((s) =>
    s.lags!.map((l) => [l.what, String(l.samples), String(l.missed), msCell(l.p50Ms), msCell(l.p95Ms), msCell(l.p99Ms), msCell(l.maxMs), target, verdict(l.met), l.note ?? ""]),
  );
  return [
    "\n## Freshness of the projections (decisions.md section 9)\n",
    table(["Change", "Seen", `Not seen in ${DEADLINE_MS / 1000} s`, "p50", "p95", "p99", "max", "Section 9", "Met", "Note"], rows),
    `\nFrom the change's answer at the client to the first read of the tracking service's own table that shows it (polled every ${POLL_MS} ms, so each figure is late by up to ${POLL_MS} ms), under the scenario's own load; pooled over ${String(results.settings.rounds)} rounds. A change not seen in ${DEADLINE_MS / 1000} s counts as a miss and fails the promise.`,
  ].join("\n");
}

/**
 * What bounds each path: the CPU every process spends per request. On a machine of N cores the
 * mesh cannot serve more than N x 1000 / (total ms) requests a second, however it is tuned.
 */
function cpuBudgetTable(results: BenchResults): string | undefined {
  const measured = results.scenarios.filter((s) => s.cpu?.length);
  if (!measured.length) return undefined;
  const names = measured[0]!.cpu!.map((p) => p.name);
  const cores = results.machine.cores;
  const rows = measured.map((s) => {
    const cpu = s.cpu!;
    const { totalMs, maxPerSecond } = ceiling(cpu, cores);
    const wakeups = wakeupsPerRequest(cpu);
    return [
      s.title,
      ...names.map((name) => n(cpu.find((p) => p.name === name)?.duringMs, 2)),
      cpu.some((p) => p.afterMs !== undefined) ? n(afterMs(cpu), 2) : "–",
      `**${n(totalMs, 2)}**`,
      n(maxPerSecond, 0),
      n(s.mesh?.median.throughput),
      wakeups === undefined ? "–" : n(wakeups, 1),
      wakeups === undefined ? "–" : n((duringMs(cpu) * 1000) / wakeups, 0),
    ];
  });
  return [
    `\n## What bounds each path: CPU ms per request (medians over the mesh's rounds)\n`,
    table(["Scenario", ...names.map((name) => (name === FLEET ? `${name} (drivers: not in the total)` : name)), "after the round, all", "total", `ceiling on ${cores} cores, req/s`, "measured req/s", "thread wake-ups per request", "CPU µs per wake-up"], rows),
    `\nEach process's CPU (/proc utime+stime; postgresql: the backends of the mesh's databases together) while the mesh's round ran, divided by the requests answered; "after the round" is what the processes spent once the load stopped, until the next mesh round (the baseline's round in between): consumers and outbox relays catching up. The sandbox fleet's process (the simulated drivers, a client of the mesh like the load driver), when it runs, is shown on its own and counted in neither "after the round" nor the total; the bench stops it before the scenarios. The ceiling is ${cores} x 1000 ms over the total: the most the mesh can serve on this machine with the load driver and the baseline taking nothing. The profiled round of each scenario (in .bench/report.md, profiles in .bench/profiles/) shows where each process's share goes. Thread wake-ups: every thread's voluntary context switches in the product's processes while the round ran (/proc/<pid>/task/*/status; each a sleep that a message, a reply or a timer ended), per request; CPU µs per wake-up is the round's CPU over them. A path whose profile shows no function worth tuning and whose CPU per wake-up is the floor's is bound by how many times its request wakes a thread (hops, round trips, events): fewer of those, not faster code, is what lowers it.`,
  ].join("\n");
}

/** CPU ms per request of the product's processes while the round ran (after the round left out, as the wake-ups are). */
const duringMs = (cpu: readonly ProcessCpu[]) => cpu.filter(isProduct).reduce((sum, p) => sum + (Number.isFinite(p.duringMs) ? p.duringMs : 0), 0);

/** Each path beside the design floor's cost for the same request (floor-line.ts). */
function floorTable(results: BenchResults): string | undefined {
  const measured = results.scenarios.filter((s) => s.floor && s.cpu?.length);
  if (!measured.length) return undefined;
  const rows = measured.map((s) => {
    const floor = s.floor!;
    const pathMs = ceiling(s.cpu!, results.machine.cores).totalMs;
    const byProcess = floor.cpu.map((p) => `${p.name} ${n(processMs(p), 2)}`).join(", ");
    const [floorWakeups, pathWakeups] = [wakeupsPerRequest(floor.cpu), wakeupsPerRequest(s.cpu!)];
    const wakeups = floorWakeups === undefined || pathWakeups === undefined ? "–" : `${n(floorWakeups, 1)} / ${n(pathWakeups, 1)}`;
    return [s.title, `a handler that ${floor.what}`, n(floor.figures.median.throughput, 0), byProcess, `**${n(floorMs(floor), 2)}**`, n(pathMs, 2), `${n(pathMs / floorMs(floor), 2)}x`, wakeups];
  });
  return [
    "\n## The design floor: the same request through this design's parts alone (CPU ms per request)\n",
    table(["Path", "Floor", "Floor req/s", "Floor by process", "floor total", "path total", "path/floor", "thread wake-ups per request, floor / path"], rows),
    "\nThe floor (scripts/bench/floor/) is a fastify route answering JSON that makes one Connect call over HTTP/2 with binary protobuf to another process, whose handler does nothing of the product's (a constant, one primary-key statement through a pg pool, or a create: a quote over one more call, one transaction with its outbox row, one event published to Kafka and applied by three consumer groups, each in a transaction): no token check, validation, limits, logging, metrics, tracing, interceptors, relay or projections. Its rounds run in the same rounds as the mesh's, after them, read on its own processes (with the broker and the baseline database's backends; a create's round is read once its consumers caught up). A path cannot cost less than its floor without a different design (fewer processes or events on the path); what it spends above the floor is the product's own work. Thread wake-ups as in the table above (the floor's create counted until its consumers caught up, the path's while its round ran).",
  ].join("\n");
}

/** The profiled round of a scenario: each process's CPU per request and what it is spent on. */
function profileTable(s: ScenarioResult): string | undefined {
  const profile = s.profile;
  if (!profile?.processes.length) return undefined;
  const rows = [...profile.processes]
    .sort((a, b) => (Number.isFinite(b.cpuMsPerRequest) ? b.cpuMsPerRequest : 0) - (Number.isFinite(a.cpuMsPerRequest) ? a.cpuMsPerRequest : 0))
    .map((p) => [p.name, n(p.cpuMsPerRequest, 2), describeShares(p, "owners", 6), describeShares(p, "functions", 3), `\`${p.file}\``]);
  return `### ${s.title}: profiled round (${profile.requests} requests in ${n(profile.seconds)} s, not counted in the figures)\n\n${table(["Process", "CPU ms/request", "Main thread by owner (% of its busy time)", "Hottest functions (self time)", "Profile"], rows)}`;
}

function roundsTable(s: ScenarioResult): string {
  const rows: string[][] = [];
  const add = (label: string, t: TargetFigures | undefined) =>
    t?.rounds.forEach((r, i) => rows.push([label, String(i + 1), n(r.throughput), msCell(r.p50Ms), msCell(r.p99Ms), String(r.requests), String(r.errors), n(r.clientCpuPercent, 0)]));
  add("mesh", s.mesh);
  add("baseline", s.baseline);
  add("design floor", s.floor?.figures);
  return `### ${s.title}${s.notes ? ` — ${s.notes}` : ""}\n\n${table(["Target", "Round", "req/s", "p50", "p99", "Requests", "Errors", "Client CPU %"], rows)}`;
}

export function renderReport(results: BenchResults): string {
  const m = results.machine;
  return [
    `# make bench — ${m.date}`,
    "",
    `Commit ${m.commit}${m.dirty ? " (with uncommitted changes)" : ""} · ${m.cores} cores (${m.cpuModel}) · Node ${m.node} · load average at start ${m.loadAverage.map((v) => v.toFixed(2)).join(" ")} · ` +
      `${String(results.settings.connections)} connections, ${String(results.settings.rounds)} interleaved rounds of ${String(results.settings.roundSeconds)} s · run took ${(results.durationSeconds / 60).toFixed(1)} min`,
    "",
    renderSummary(results),
    ...(results.scenarios.some((s) => s.profile) ? ["\n## Where the CPU goes: one profiled round per scenario\n", results.scenarios.map(profileTable).filter(Boolean).join("\n\n")] : []),
    "\n## Every round\n",
    results.scenarios.filter((s) => s.status === "ran").map(roundsTable).join("\n\n"),
    ...(results.timeline ? ["\n## Timeline\n", `Seconds from the start at which each part ended: ${Object.entries(results.timeline).map(([k, v]) => `${k} ${v}`).join(" · ")}.`] : []),
    "\n## Notes\n",
    results.notes.map((line) => `- ${line}`).join("\n"),
    "",
  ].join("\n");
}
