/**
 * The idle figures: before the load, with the fleet on and shipments waiting for a driver, the CPU
 * and memory of each of the seven processes and the Kafka broker; then, unless profiles are
 * skipped, a window as long with every Node process under V8's profiler: what the idle CPU is;
 * then the fleet is stopped and a last window as long says what the seven spend without it.
 */
import type { DevStack } from "../dev";
import { FLEET } from "../../packages/topology/src";
import { offerPollsAnswered } from "./driver-polls";
import { measureIdle, type WatchedProcess } from "./idle";
import { KEPT_SHARES, type MeshProfiler, type ProcessProfile } from "./profiler";
import type { IdleResults } from "./report/results";
import { jobsByState, seedWaitingForDriver } from "../../packages/testing/src/seed/seed";
import type { BenchSettings } from "./settings";
import { stopAll } from "../../packages/testing/src/mesh/process";

/**
 * The seven processes, the fleet while it runs (the bench stops it after the idle windows) and the
 * Kafka broker, as running now (a restart changes a pid).
 */
export function watchedProcesses(stack: DevStack): WatchedProcess[] {
  const running = stack.mesh!.processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  return [...running.map((p) => ({ name: p.name, pid: p.child.pid })), { name: "kafka broker", pid: stack.kafka?.pid }];
}

/**
 * `floor`: the design floor's Node processes (floor/), idle beside the seven in the last window:
 * what a process with this design's servers and clients spends doing nothing.
 */
export async function measureIdleMesh(stack: DevStack, merchantId: string, settings: BenchSettings, log: (line: string) => void, profiler: MeshProfiler | undefined, floor: readonly WatchedProcess[] = []): Promise<IdleResults> {
  const mesh = stack.mesh!;
  const databases = stack.databases!;
  log(`idle: seeding ${settings.waitingShipments.toLocaleString("en")} shipments waiting for a driver (shipment and dispatch databases)...`);
  const waiting = await seedWaitingForDriver({ shipment: databases.shipment.url, dispatch: databases.dispatch.url }, merchantId, settings.waitingShipments);
  log("idle: restarting dispatch so it starts with that backlog, as after a deploy...");
  await mesh.restart("dispatch");
  log(`idle: settling ${settings.idleSettleSeconds} s, then measuring ${settings.idleSeconds} s...`);
  await new Promise((r) => setTimeout(r, settings.idleSettleSeconds * 1000));
  const watched = watchedProcesses(stack);
  const gateway = mesh.processes.find((p) => p.name === "gateway");
  const pollsBefore = gateway ? await offerPollsAnswered(gateway.metricsUrl) : undefined;
  const [figures, jobs] = await Promise.all([
    measureIdle(watched, settings.idleSeconds),
    // Read mid-window; the schema may have moved on, and this is only context.
    new Promise((r) => setTimeout(r, (settings.idleSeconds * 1000) / 2)).then(() => jobsByState(databases.dispatch.url).catch(() => undefined)),
  ]);
  const pollsAfter = gateway ? await offerPollsAnswered(gateway.metricsUrl) : undefined;
  const driverPolls = pollsBefore !== undefined && pollsAfter !== undefined ? pollsAfter - pollsBefore : undefined;
  // The product's seven processes: not the broker, and not the fleet (simulated drivers, measured on its own line).
  const seven = figures.filter((f) => f.name !== "kafka broker" && f.name !== FLEET);
  const sum = (values: number[]) => values.reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
  for (const f of figures) log(`  ${f.name.padEnd(13)} cpu ${f.cpuPercent.toFixed(1).padStart(5)}%  rss ${(f.rssBytes / 1024 ** 2).toFixed(0).padStart(5)} MiB`);
  const result: IdleResults = {
    waitingShipments: waiting,
    jobsByState: jobs,
    settleSeconds: settings.idleSettleSeconds,
    seconds: settings.idleSeconds,
    processes: figures,
    sevenCpuPercent: sum(seven.map((f) => f.cpuPercent)),
    sevenRssBytes: sum(seven.map((f) => f.rssBytes)),
    meshRssBytes: sum(figures.map((f) => f.rssBytes)),
    ...(driverPolls !== undefined ? { driverPolls } : {}),
  };
  if (driverPolls !== undefined) log(`  the simulated drivers' long polls for offers answered: ${driverPolls} (${(driverPolls / settings.idleSeconds).toFixed(1)}/s)`);
  log(`  the seven: cpu ${result.sevenCpuPercent.toFixed(1)}% of one core, rss ${(result.sevenRssBytes / 1024 ** 3).toFixed(2)} GiB; with the broker ${(result.meshRssBytes / 1024 ** 3).toFixed(2)} GiB`);
  let profiled: IdleResults = result;
  if (profiler) {
    // After the figures, which the profiler would skew; the broker has no profiler to signal.
    const node = watched.filter((p) => p.name !== "kafka broker" && p.pid !== undefined);
    log(`idle: ${settings.idleSeconds} s more with every Node process profiled (.bench/profiles/idle/)...`);
    profiled = { ...result, profiles: await profileWindow(profiler, node, "idle", settings.idleSeconds) };
  }
  // The same window with the fleet stopped (its drivers on shift, silent): what of the seven's
  // idle CPU is the product's own, and what is serving the simulated drivers.
  if (!(await stopFleet(stack))) return profiled;
  log(`idle: fleet stopped; settling ${settings.idleSettleSeconds} s, then measuring ${settings.idleSeconds} s without it...`);
  await new Promise((r) => setTimeout(r, settings.idleSettleSeconds * 1000));
  const services = watchedProcesses(stack).filter((p) => p.name !== "kafka broker");
  const measured = await measureIdle([...services, ...floor], settings.idleSeconds);
  const quiet = measured.slice(0, services.length);
  const withoutFleet = { processes: quiet, sevenCpuPercent: sum(quiet.map((f) => f.cpuPercent)), ...(floor.length ? { floor: measured.slice(services.length) } : {}) };
  log(`  without the fleet, the seven: cpu ${withoutFleet.sevenCpuPercent.toFixed(1)}% of one core`);
  for (const f of withoutFleet.floor ?? []) log(`  ${f.name.padEnd(15)} cpu ${f.cpuPercent.toFixed(1).padStart(5)}% (design floor, idle)`);
  if (!profiler) return { ...profiled, withoutFleet };
  // What the seven's own background is: the idle budget is theirs without the fleet.
  const node = services.filter((p) => p.pid !== undefined);
  log(`idle: ${settings.idleSeconds} s more without the fleet, every Node process profiled (.bench/profiles/idle-without-fleet/)...`);
  return { ...profiled, withoutFleet: { ...withoutFleet, profiles: await profileWindow(profiler, node, "idle-without-fleet", settings.idleSeconds) } };
}

/** `seconds` of doing nothing with `processes` under V8's profiler (.bench/profiles/<label>/), each summarised. */
async function profileWindow(profiler: MeshProfiler, processes: readonly WatchedProcess[], label: string, seconds: number): Promise<ProcessProfile[]> {
  await profiler.start(processes);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const profiles = await profiler.stop(processes, label);
  return profiles.map((p) => ({ ...p, owners: p.owners.slice(0, KEPT_SHARES), functions: p.functions.slice(0, KEPT_SHARES) }));
}

/**
 * Stops the sandbox fleet: SIGTERM, its drivers left on shift and silent. Answers whether it was
 * running. The bench stops it before the scenarios, whose shipments it would otherwise deliver
 * while the later ones are measured.
 */
export async function stopFleet(stack: DevStack): Promise<boolean> {
  const fleet = stack.mesh!.processes.find((p) => p.name === FLEET);
  if (!fleet || fleet.child.exitCode !== null || fleet.child.signalCode !== null) return false;
  await stopAll([fleet]);
  return true;
}
