/**
 * `make bench`: starts the mesh as `make dev` does plus its baselines, seeds what the scenarios
 * need, runs every scenario in interleaved rounds, measures idle CPU and memory, Prisma's overhead
 * and a warm start, then writes .bench/report.md, .bench/results.json and .bench/plot.svg.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DevStack } from "../dev";
import { dropDatabase } from "../../packages/db/src/index";
import { encodeCursor } from "./baseline/app";
import { prepareBaselineDatabase, seedBaselineShipments } from "./baseline/database";
import { databaseBackends } from "./cpu-budget";
import { call } from "../../packages/testing/src/load/driver";
import { measureIdleMesh, stopFleet, watchedProcesses } from "./idle-phase";
import { benchNotes } from "./notes";
import { measurePrismaOverhead } from "./prisma-overhead";
import { MeshProfiler, profilerEnv } from "./profiler";
import { renderReport, renderSummary } from "./report/markdown";
import type { BenchResults, IdleResults, StartupResults } from "./report/results";
import { renderSvg } from "./report/svg";
import { runScenario, type ScenarioRun } from "./rounds";
import { SCENARIOS } from "./scenarios/index";
import type { ScenarioResult } from "./scenarios/scenario";
import { deepCursor } from "./seed/deep-cursor";
import { query, RIYADH, seedShipments, settleSeededTables } from "../../packages/testing/src/seed/seed";
import { parseSettings, type BenchSettings } from "./settings";
import { benchStackOptions, benchToken, ROOT, sampleOf, startChild, type Child } from "./setup";
import { measureWarmStart } from "./warm-start";
import { startFloor } from "./floor/start";

const t0 = Date.now();
/** Seconds since the start at which each part of the run ended, for the time budget. */
const timeline: Record<string, number> = {};
const mark = (name: string) => (timeline[name] = Math.round((Date.now() - t0) / 100) / 10);
const log = (line: string) => console.log(`[bench ${((Date.now() - t0) / 1000).toFixed(1).padStart(6)}s] ${line}`);
const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();

let settings: BenchSettings;
try {
  settings = parseSettings(process.argv.slice(2).filter(Boolean));
  const unknown = (settings.scenarios ?? []).filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(", ")}; known: ${SCENARIOS.map((s) => s.name).join(", ")}`);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(2);
}
const outDir = path.join(ROOT, ".bench");
const baseStackOpts = await benchStackOptions(settings);
// Each process can be profiled in place (SIGUSR2) over one extra round of each scenario.
const profileInbox = path.join(baseStackOpts.stateDir, "profiles");
const profiler = settings.skip.has("profile") ? undefined : new MeshProfiler(profileInbox, path.join(outDir, "profiles"));
if (profiler) rmSync(path.join(outDir, "profiles"), { recursive: true, force: true });
const stackOpts = profiler ? { ...baseStackOpts, env: { ...baseStackOpts.env, ...profilerEnv(profileInbox) } } : baseStackOpts;
const stack = new DevStack({ ...stackOpts, log: (line) => log(`stack: ${line}`) });
const children: Child[] = [];
let stopping = false;
const cleanup = async () => {
  await Promise.all(children.map((c) => c.stop()));
  await stack.stop();
};
const interrupted = () => {
  if (stopping) process.exit(130);
  stopping = true;
  log("interrupted: stopping everything the bench started...");
  void cleanup().finally(() => process.exit(130));
};
process.on("SIGINT", interrupted);
process.on("SIGTERM", interrupted);

const machine = {
  date: new Date().toISOString(),
  commit: git("rev-parse", "--short=12", "HEAD"),
  dirty: git("status", "--porcelain").length > 0,
  cores: os.cpus().length,
  cpuModel: os.cpus()[0]?.model.trim() ?? "unknown",
  node: process.version,
  loadAverage: os.loadavg(),
};
const scenarios = SCENARIOS.filter((s) => !settings.scenarios || settings.scenarios.includes(s.name));
log(`${machine.cores} cores, load average ${machine.loadAverage.map((v) => v.toFixed(2)).join(" ")}; scenarios ${scenarios.map((s) => s.name).join(", ")}`);

try {
  log("starting the mesh as make dev does (own databases, ports and .dev/bench)...");
  await stack.start();
  const startup: { -readonly [K in keyof StartupResults]: StartupResults[K] } = { firstStartSeconds: (Date.now() - t0) / 1000 };
  log(`mesh ready in ${startup.firstStartSeconds.toFixed(1)} s at ${stack.mesh!.gatewayUrl}`);
  mark("mesh started");
  const adminUrl = stack.postgres!.adminUrl;
  const gateway = stack.mesh!.gatewayUrl;
  const auth = await benchToken(gateway, stack.credentialsFile);

  const baselineDb = `${stackOpts.dbPrefix}baseline`;
  await dropDatabase(adminUrl, baselineDb);
  const baselineUrl = await prepareBaselineDatabase(adminUrl, baselineDb);
  const cursorSecret = stack.secret("CURSOR_SECRET");
  const jwks = (await call(gateway, { method: "GET", path: "/.well-known/jwks.json", headers: {} })).body;
  const logDir = path.join(stackOpts.stateDir, "logs");
  children.push(await startChild("bare-http", "scripts/bench/baseline/bare-http.ts", {}, logDir));
  children.push(
    await startChild(
      "baseline",
      "scripts/bench/baseline/main.ts",
      {
        DATABASE_URL: baselineUrl,
        JWKS: JSON.stringify(jwks),
        TOKEN_ISSUER: auth.issuer,
        TOKEN_AUDIENCE: auth.audience,
        CURSOR_SECRET: cursorSecret,
        LOCATIONS: JSON.stringify({ [auth.savedLocationCode]: { ...RIYADH, addressLine: "King Fahd Road, Al Olaya, Riyadh", cityCode: "RUH" } }),
      },
      logDir,
    ),
  );
  log(`baselines listening: bare node:http ${children[0]!.url}, one-process ${children[1]!.url}`);
  // The design floor (floor/edge.ts): its inner service reads the baseline's database.
  const floor = settings.skip.has("floor") ? undefined : await startFloor({ databaseUrl: baselineUrl, merchantId: auth.merchantId, brokers: stack.kafka!.brokers, logDir });
  if (floor) {
    children.push(floor.inner, floor.consumers, floor.edge);
    log(`design floor listening: edge ${floor.edge.url} -> inner ${floor.inner.url}, its consumers joined`);
  }

  const needsList = scenarios.some((s) => ["read", "list-first", "list-deep"].includes(s.name));
  const count = needsList ? settings.listShipments : 1000;
  log(`seeding ${count.toLocaleString("en")} shipments of the bench merchant by SQL, in the mesh and in the baseline...`);
  const newest = new Date(Date.now() - 600_000);
  const shipmentDb = stack.databases!.shipment.url;
  const meshIds = (await seedShipments(shipmentDb, { merchantId: auth.merchantId, count, state: "DELIVERED", version: 7, cityCode: "RUH", at: RIYADH, newest, spacingSeconds: 1, firstNumber: 0, referencePrefix: "BENCH-SEED-" })).map((r) => r.id);
  const baselineIds = await seedBaselineShipments(baselineUrl, auth.merchantId, count, newest);
  await Promise.all([settleSeededTables(shipmentDb, ["shipment", "shipment_item"]), settleSeededTables(baselineUrl, ["shipment", "shipment_item"])]);
  const depth = Math.floor(count * 0.9);
  const meshDeep = await deepCursor({ shipmentDbUrl: shipmentDb, merchantId: auth.merchantId, cursorSecretBase64: cursorSecret, depth, gateway, token: auth.token, walkSeconds: 60 });
  const [deepRow] = await query<{ created_at: Date; id: string }>(baselineUrl, "SELECT created_at, id FROM shipment WHERE merchant_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1", [auth.merchantId, depth - 1]);
  const secretBytes = new Uint8Array(Buffer.from(cursorSecret, "base64"));
  mark("baselines started, data seeded");
  log(`seeded; deep cursor after ${meshDeep.depth.toLocaleString("en")} rows (${meshDeep.how}${meshDeep.refused ? `: the signed one was refused, ${meshDeep.refused}` : ""})`);

  // A phase that fails is reported and skipped: the figures measured so far still get written.
  const failures: string[] = [];
  const phase = async <T>(name: string, fn: () => Promise<T>): Promise<T | undefined> => {
    if (settings.skip.has(name)) return undefined;
    try {
      const value = await fn();
      mark(name);
      return value;
    } catch (err) {
      const why = `${name} failed: ${err instanceof Error ? err.message : String(err)}`;
      log(why);
      failures.push(why);
      return undefined;
    }
  };
  // Idle before the load: after it, the fleet is still delivering the thousands of shipments the
  // create scenarios left, which is work, not idle.
  const floorNode = floor ? [floor.edge, floor.inner, floor.consumers].map((c) => ({ name: c.name, pid: c.child.pid })) : [];
  const idle: IdleResults | undefined = await phase("idle", () => measureIdleMesh(stack, auth.merchantId, settings, log, profiler, floorNode));
  // The fleet's drivers would deliver every shipment the scenarios create, each a dozen steps
  // through the gateway, dispatch, shipment, tracking and webhook, while later scenarios are
  // measured: that is the fleet's load on the mesh, not the path's cost. Stopped by the idle phase
  // or here, its drivers stay on shift and silent; a create's consequences end at the job waiting
  // for one.
  if (await stopFleet(stack)) log("sandbox fleet stopped: the scenarios' shipments wait for a driver");

  const results = new Map<string, ScenarioResult>();
  // The services' own databases, not the baseline's (which shares the prefix).
  const meshDatabases = databaseBackends(Object.values(stack.databases!).map((db) => new URL(db.url).pathname.slice(1)));
  const ctx = {
    settings,
    gateway,
    baseline: children[1]!.url,
    bare: children[0]!.url,
    floor: floor ? { origin: floor.edge.url, caughtUp: () => floor.caughtUp() } : undefined,
    token: auth.token,
    merchantId: auth.merchantId,
    savedLocationCode: auth.savedLocationCode,
    run: Date.now().toString(36),
    meshReadIds: sampleOf(meshIds, 1000),
    baselineReadIds: sampleOf(baselineIds, 1000),
    meshDeepCursor: meshDeep,
    trackingDatabaseUrl: stack.databases!.tracking.url,
    webhookDatabaseUrl: stack.databases!.webhook.url,
    baselineDeepCursor: deepRow ? encodeCursor(secretBytes, auth.merchantId, { createdAt: deepRow.created_at, id: deepRow.id }) : undefined,
    results,
    meshProcesses: () => [...watchedProcesses(stack), meshDatabases],
    floorProcesses: () => (floor ? [...floorNode, { name: "kafka broker", pid: stack.kafka?.pid }, databaseBackends([baselineDb])] : []),
    profiler,
    log,
  };
  const profiledRounds = new Map<string, NonNullable<ScenarioRun["profile"]>>();
  for (const scenario of scenarios) {
    const run = await runScenario(scenario, ctx);
    results.set(scenario.name, run.result);
    if (run.profile) profiledRounds.set(scenario.name, run.profile);
    mark(scenario.name);
  }
  await Promise.all(children.map((c) => c.stop()));

  if (profiledRounds.size) {
    log("profiles: one more round of each scenario with every process under V8's profiler (after every figure, which it would skew)...");
    for (const [name, profile] of profiledRounds) {
      const taken = await profile();
      if (taken) results.set(name, { ...results.get(name)!, profile: taken });
    }
    mark("profiles");
  }
  await stack.mesh!.stop();
  const prisma = await phase("prisma", () => {
    log(`Prisma 7 vs raw pg, ${settings.prismaStatements} statements per measurement (mesh stopped, machine quiet)...`);
    return measurePrismaOverhead(adminUrl, `${stackOpts.dbPrefix}prisma`, settings.prismaStatements, settings.connections, log);
  });
  await stack.stop();
  const warm = await phase("warm-start", () => {
    log("make dev from a warm checkout: a new process starting the stack on the existing databases...");
    return measureWarmStart(stackOpts);
  });
  if (warm !== undefined) {
    startup.warmStartSeconds = warm;
    log(`warm start to ready: ${warm.toFixed(1)} s`);
  }

  const report: BenchResults = {
    machine,
    settings: { ...settings, skip: [...settings.skip] },
    startup,
    scenarios: [...results.values()],
    ...(idle ? { idle } : {}),
    ...(prisma ? { prisma } : {}),
    notes: [...benchNotes({ listShipments: count, waitingShipments: settings.waitingShipments, deepHow: meshDeep.how, idle: idle !== undefined, prisma: prisma !== undefined }), ...failures],
    durationSeconds: (Date.now() - t0) / 1000,
    timeline,
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, "results.json"), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(outDir, "report.md"), renderReport(report));
  writeFileSync(path.join(outDir, "plot.svg"), renderSvg(report.scenarios, `make bench ${machine.date.slice(0, 10)} (${machine.commit}): mesh vs baseline, req/s`));
  console.log(`\n${renderSummary(report)}\n`);
  log(`wrote .bench/report.md, .bench/results.json and .bench/plot.svg in ${(report.durationSeconds / 60).toFixed(1)} min`);
} catch (err) {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  if (!stopping) await cleanup();
}
