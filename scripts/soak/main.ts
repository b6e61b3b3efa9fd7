/**
 * `make soak`: the mesh with two replicas of the gateway and of every service, the sandbox fleet
 * and a Redis the gateways share, started as `make dev` does in its own state folder (.dev/soak),
 * databases and ports; then the soak (./run.ts) for SOAK_MINUTES (default 30). Writes
 * .soak/report.md and .soak/results.json, prints the report, and exits 1 when the soak failed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { freePort } from "../../packages/testing/src/free-port";
import { startRedisServer, type RedisServer } from "../../packages/testing/src/redis-server";
import { ROOT } from "../bench/setup";
import { devDatabasePrefix } from "../checkout/namespace";
import { DevStack } from "../dev";
import { freeSidePorts } from "../../packages/testing/src/mesh";
import { SERVICES } from "../../packages/topology/src";
import { renderSoakReport } from "../../packages/testing/src/soak/report";
import { runSoak } from "../../packages/testing/src/soak/run";
import { soakEnv, soakSettings, type SoakSettings } from "../../packages/testing/src/soak/settings";

const t0 = Date.now();
const log = (line: string) => console.log(`[soak ${((Date.now() - t0) / 1000).toFixed(1).padStart(7)}s] ${line}`);

let settings: SoakSettings;
try {
  settings = soakSettings(process.env);
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(2);
}
const outDir = path.join(ROOT, ".soak");
let redis: RedisServer | undefined;
let stack: DevStack | undefined;
let stopping = false;
const cleanup = async () => {
  await stack?.stop();
  await redis?.stop();
};
const interrupted = () => {
  if (stopping) process.exit(130);
  stopping = true;
  log("interrupted: stopping everything the soak started...");
  void cleanup().finally(() => process.exit(130));
};
process.on("SIGINT", interrupted);
process.on("SIGTERM", interrupted);

try {
  redis = await startRedisServer();
  stack = new DevStack({
    stateDir: path.join(ROOT, ".dev", "soak"),
    dbPrefix: `${devDatabasePrefix(ROOT)}soak_`,
    gatewayPort: await freePort(),
    servicePorts: await Promise.all(SERVICES.map(() => freePort())),
    sidePorts: await freeSidePorts(freePort),
    kafkaPort: await freePort(),
    kafkaControllerPort: await freePort(),
    ...(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {}),
    env: { LOG_LEVEL: "warn", SANDBOX_FLEET_ENABLED: "true", ...soakEnv(settings, redis.url) },
    freshDatabases: true,
    replicas: 2,
    // Fifteen processes starting at once on a small machine.
    readyTimeoutMs: 300_000,
    log: (line) => log(`stack: ${line}`),
  });
  log(`${settings.minutes} min in ${settings.windowSeconds} s windows, retention periods ${settings.retentionSeconds} s; starting the mesh (two replicas each)...`);
  await stack.start();
  const databaseUrls = Object.fromEntries(Object.entries(stack.databases!).map(([service, db]) => [service, db.url])) as Record<string, string> & { shipment: string };
  const outcome = await runSoak(settings, { mesh: stack.mesh!, databaseUrls, brokers: stack.kafka!.brokers }, log);
  const report = renderSoakReport(settings, outcome.figures, outcome.failures);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, "results.json"), `${JSON.stringify({ settings, ...outcome }, null, 2)}\n`);
  writeFileSync(path.join(outDir, "report.md"), report);
  console.log(`\n${report}`);
  log(`wrote .soak/report.md and .soak/results.json; ${outcome.failures.length ? "FAILED" : "passed"}`);
  if (outcome.failures.length) process.exitCode = 1;
} catch (err) {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  if (!stopping) await cleanup();
}
