/**
 * Each process's image (Dockerfile, build arg PROCESS) has as its runtime stage the tree the build
 * stage assembles in /runtime. These tests assemble that tree for every process with the
 * Dockerfile's own command, from the bundles `make build` wrote, each in a temporary directory with
 * no node_modules anywhere above it, and run each process from its own tree as its pods do: so a
 * bundle that still needs an installed package, a file the image leaves out, or another process's
 * file it lets in, fails here rather than in a cluster.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { databaseUrl, dropDatabase, ensureDatabase } from "../../packages/db/src/index";
import { LIVENESS_SERVICE } from "../../packages/rpc/src/health-service";
import { freePort } from "../../packages/testing/src/free-port";
import { healthStatuses } from "../../packages/testing/src/grpc-js";
import { buildTargets, staleTargets } from "../../packages/testing/src/bundles";
import { ensureTopics } from "../../packages/testing/src/infra/kafka";
import { BUNDLE, CITY_STAFFING_TOPIC, FLEET, NODE_FLAGS, topicSpec } from "../../packages/topology/src";
import { ALL_PROCESSES, FAKE_SECRET_VALUES, find, podSpec, type ProcessName, sourceDir } from "./facts";
import { overlayOwnObjects } from "./kustomize";
import { DEPLOY, render, ROOT } from "./kustomize";

/** The Dockerfile's command that copies one process's runtime files into /runtime, with its continuation lines joined. */
function runtimeCopyCommand(): string {
  const run = readFileSync(path.join(ROOT, "Dockerfile"), "utf8").replace(/\\\n/g, " ").split("\n").find((line) => line.includes("mkdir /runtime"));
  const copy = run?.split("&&").map((part) => part.trim()).find((part) => part.includes("scripts/image-files.ts"));
  if (!copy?.includes('"${PROCESS}"')) throw new Error("the Dockerfile no longer assembles /runtime with scripts/image-files.ts for ${PROCESS}: update this test");
  return copy;
}

function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

/**
 * Runs a bundle from the runtime tree with only the given settings (no NODE_OPTIONS, no tsx). The
 * limit is generous: on these shared 2-core machines a start can wait a long time for a core.
 */
const START_LIMIT_MS = 180_000;
function runNode(cwd: string, args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [...NODE_FLAGS, ...args], { cwd, env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8", timeout: START_LIMIT_MS });
}

/** Each image's /app at most: deploy/README.md records the sizes (`make image-size`). */
const RUNTIME_TREE_BUDGET_BYTES = 16 * 1000 ** 2;

/** Holds one directory per process: that process's image's /app. */
let runtime = "";
const appOf = (name: ProcessName) => path.join(runtime, name);

beforeAll(() => {
  expect(staleTargets().map((target) => target.name), "stale or missing bundles: run make build").toEqual([]);
  runtime = mkdtempSync(path.join(os.tmpdir(), "tawsil-runtime-"));
  for (const name of ALL_PROCESSES) {
    mkdirSync(appOf(name));
    const command = runtimeCopyCommand().replaceAll("/runtime", appOf(name)).replaceAll("${PROCESS}", name);
    const copied = spawnSync("bash", ["-euo", "pipefail", "-c", command], { cwd: ROOT, encoding: "utf8" });
    expect(copied.stderr, name).toBe("");
    expect(copied.status, name).toBe(0);
  }
}, 120_000);

afterAll(() => {
  if (runtime) rmSync(runtime, { recursive: true, force: true });
});

/** What the image of one process may hold, and must: stated here apart from scripts/image-files.ts. */
function expectedTree(name: ProcessName): { allowed: RegExp; required: string[] } {
  const dir = sourceDir(name);
  const under = (sub: string) => (existsSync(path.join(ROOT, dir, sub)) ? filesUnder(path.join(ROOT, dir, sub)).map((file) => `${dir}/${sub}/${file}`) : []);
  const bundle = [`${dir}/${BUNDLE}`, `${dir}/${BUNDLE}.map`];
  if (name === "gateway") {
    // The gateway's data/ (the OpenAPI document) and the renderer of /docs, copied beside its bundle.
    return { allowed: /^gateway\/(dist\/main\.mjs(\.map)?|dist\/redoc\.standalone\.js|data\/.+)$/, required: [...bundle, "gateway/dist/redoc.standalone.js", ...under("data")] };
  }
  const migrateCli = buildTargets().find((target) => target.name === "migrate-cli")?.outfile ?? "";
  return {
    allowed: new RegExp(`^(services/${name}/(dist/main\\.mjs(\\.map)?|prisma/migrations/.+|data/.+)|packages/db/dist/migrate-cli\\.mjs(\\.map)?)$`),
    // A service's migration Job and initContainer run the migration runner from its own image.
    required: [...bundle, migrateCli, `${migrateCli}.map`, ...under("prisma/migrations"), ...under("data")],
  };
}

describe("each process's image's runtime tree", () => {
  it.each(ALL_PROCESSES)("of %s holds its bundle with source map, its migrations and data files, and nothing of another process", (name) => {
    const files = filesUnder(appOf(name));
    const { allowed, required } = expectedTree(name);
    expect(files).toEqual(expect.arrayContaining(required));
    // No other process's bundle, no installed package, TypeScript, test, tool or make depfile.
    expect(files.filter((file) => !allowed.test(file))).toEqual([]);
  });

  // `make image-size` sums the files scripts/image-files.ts lists, the very list this tree was copied from.
  it.each(ALL_PROCESSES)("%s's tree is within its budget", (name) => {
    const copied = filesUnder(appOf(name)).reduce((sum, file) => sum + statSync(path.join(appOf(name), file)).size, 0);
    // A bundle with its source map is about 10 MB; an installed package tree would be hundreds.
    expect(copied).toBeLessThan(RUNTIME_TREE_BUDGET_BYTES);
  });

  it.each(ALL_PROCESSES)("starts %s without node_modules; its stack traces point at the TypeScript", (name) => {
    // No settings at all: the process loads its whole bundle, then its config.ts refuses to start.
    const result = runNode(path.join(appOf(name), sourceDir(name)), [BUNDLE], {});
    const output = `${result.stdout}${result.stderr}`;
    expect(output).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find (module|package)/);
    expect(result.status).not.toBe(0);
    expect(output).toMatch(/ConfigError/);
    expect(output).toMatch(/packages\/config\/src\/[\w-]+\.ts:\d+:\d+/);
  }, START_LIMIT_MS + 10_000);
});

/** Starts a process from the runtime tree as its pod does; resolves once its /readyz answers 200. */
async function serve(name: ProcessName, env: Record<string, string>): Promise<{ url: string; adminUrl: string; metricsUrl: string; stop(): Promise<number | null> }> {
  const [port, adminPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(process.execPath, [...NODE_FLAGS, BUNDLE], {
    cwd: path.join(appOf(name), sourceDir(name)),
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), ADMIN_PORT: String(adminPort), METRICS_PORT: String(metricsPort), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  let status = 0;
  for (let attempt = 0; attempt < START_LIMIT_MS / 250 && status !== 200 && child.exitCode === null; attempt++) {
    status = await fetch(`${url}/readyz`).then((res) => res.status, () => 0);
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const stop = async () => {
    child.kill("SIGTERM");
    return exited;
  };
  if (status !== 200) {
    await stop();
    throw new Error(`${name} not ready from the runtime tree:\n${output}`);
  }
  return { url, adminUrl: `http://127.0.0.1:${adminPort}`, metricsUrl: `http://127.0.0.1:${metricsPort}`, stop };
}

describe("processes served from the runtime tree", () => {
  const adminUrl = inject("databaseAdminUrl");
  // Merchant relays its outbox and pricing listens to merchant events: both reach the broker.
  const KAFKA_BROKERS = inject("kafkaBrokers").join(",");
  // Pricing owns no database: only merchant's is created.
  const names = { merchant: `tawsil_runtime_merchant_${process.pid}` };
  const migrate = (service: keyof typeof names) =>
    // As the migration Job does: workingDir /app, the migrations by their path in the image.
    // The url comes from the environment, as the Job passes it: never on the command line.
    runNode(appOf(service), [buildTargets().find((target) => target.name === "migrate-cli")?.outfile ?? "", `services/${service}/prisma/migrations`], {
      MIGRATION_DATABASE_URL: databaseUrl(adminUrl, names[service]),
    });

  beforeAll(async () => {
    for (const name of Object.values(names)) await ensureDatabase(adminUrl, name);
  });
  afterAll(async () => {
    for (const name of Object.values(names)) await dropDatabase(adminUrl, name);
  });

  it("the migration runner's bundle applies a service's migrations, then finds nothing to do", { timeout: 2 * START_LIMIT_MS }, () => {
    const first = migrate("merchant");
    expect(first.stderr).toBe("");
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/Applied [1-9]\d* migration/);
    const again = migrate("merchant");
    expect(again.status).toBe(0);
    expect(again.stdout).toContain("No pending migrations.");
  });

  it("merchant answers an RPC through its bundled Prisma client (query compiler included) and drains", { timeout: 2 * START_LIMIT_MS }, async () => {
    const merchant = await serve("merchant", {
      DATABASE_URL: databaseUrl(adminUrl, names.merchant),
      SIGNING_KEY_ENCRYPTION_KEY: FAKE_SECRET_VALUES.SIGNING_KEY_ENCRYPTION_KEY ?? "",
      KAFKA_BROKERS,
    });
    try {
      // A lookup by code: a query on a model, planned by the WebAssembly query compiler.
      const res = await fetch(`${merchant.adminUrl}/tawsil.merchant.v1.MerchantAdminService/GetMerchantByCode`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: "NO-SUCH-MERCHANT" }),
      });
      expect(await res.json()).toMatchObject({ code: "not_found" });
      // Its outbox relay exports the lag its OutboxLag alert reads, on the /metrics its PodMonitor scrapes.
      expect(await (await fetch(`${merchant.metricsUrl}/metrics`)).text()).toMatch(/^outbox_oldest_unsent_age_seconds\{service="merchant"\} 0$/m);
    } finally {
      expect(await merchant.stop()).toBe(0);
    }
  });

  it("pricing finds the data files it reads at start-up beside its bundle, with no database at all, and passes its pod's gRPC probes", { timeout: 2 * START_LIMIT_MS }, async () => {
    expect(existsSync(path.join(runtime, "services", "pricing", "prisma"))).toBe(false);
    // Pricing is ready once it has read dispatch's city staffing to its end: the topic must exist,
    // as its KafkaTopic makes it in a cluster (empty here, so read at once).
    await ensureTopics(inject("kafkaBrokers"), [topicSpec(CITY_STAFFING_TOPIC)]);
    const pricing = await serve("pricing", {
      MERCHANT_SERVICE_URL: "http://127.0.0.1:9",
      KAFKA_BROKERS,
    });
    try {
      // What the kubelet asks, read from the rendered Deployment: grpc.health.v1 Check per probe.
      const container = podSpec(find(render(path.join(DEPLOY, "base")), "Deployment", "pricing")).containers[0];
      const probed = [container?.startupProbe, container?.livenessProbe, container?.readinessProbe].map((probe) => probe?.grpc?.service ?? "");
      expect(probed).toEqual([LIVENESS_SERVICE, LIVENESS_SERVICE, ""]);
      expect(await healthStatuses(pricing.url, probed)).toEqual({ [LIVENESS_SERVICE]: "SERVING", "": "SERVING" });
    } finally {
      expect(await pricing.stop()).toBe(0);
    }
  });

  it("the sandbox fleet refuses any environment but the sandbox, and in the sandbox passes its pod's liveness probes before its peers answer", { timeout: 2 * START_LIMIT_MS }, async () => {
    const unreachable = { GATEWAY_URL: "http://127.0.0.1:9", DISPATCH_ADMIN_URL: "http://127.0.0.1:9", MERCHANT_ADMIN_URL: "http://127.0.0.1:9", SHIPMENT_ADMIN_URL: "http://127.0.0.1:9" };
    const cwd = path.join(appOf(FLEET), sourceDir(FLEET));
    const production = runNode(cwd, [BUNDLE], { PORT: String(await freePort()), METRICS_PORT: String(await freePort()), TAWSIL_ENVIRONMENT: "production", ...unreachable });
    expect(production.status).toBe(1);
    expect(`${production.stdout}${production.stderr}`).toContain("TAWSIL_ENVIRONMENT=sandbox");
    // Without the admin listeners it keeps trying to start: alive (its pod is not restarted), not ready.
    const port = await freePort();
    const child = spawn(process.execPath, [...NODE_FLAGS, BUNDLE], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), METRICS_PORT: String(await freePort()), LOG_LEVEL: "error", TAWSIL_ENVIRONMENT: "sandbox", ...unreachable },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const container = podSpec(find(overlayOwnObjects("sandbox"), "Deployment", FLEET)).containers[0];
      const probed = [container?.startupProbe, container?.livenessProbe, container?.readinessProbe].map((probe) => probe?.grpc?.service ?? "");
      expect(probed).toEqual([LIVENESS_SERVICE, LIVENESS_SERVICE, ""]);
      const url = `http://127.0.0.1:${port}`;
      let alive = false;
      for (let attempt = 0; attempt < START_LIMIT_MS / 250 && !alive && child.exitCode === null; attempt++) {
        alive = await fetch(`${url}/healthz`).then((res) => res.ok, () => false);
        if (!alive) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(await healthStatuses(url, probed)).toEqual({ [LIVENESS_SERVICE]: "SERVING", "": "NOT_SERVING" });
    } finally {
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    }
  });

  it("the gateway serves its OpenAPI document and the /docs renderer from the tree, with no node_modules", { timeout: 2 * START_LIMIT_MS }, async () => {
    // The documentation needs no peer: the gateway runs alone, and is alive (not ready) without them.
    const port = await freePort();
    const peers = Object.fromEntries(["MERCHANT", "SHIPMENT", "PRICING", "DISPATCH", "TRACKING", "WEBHOOK"].map((s) => [`${s}_SERVICE_URL`, "http://127.0.0.1:9"]));
    const child = spawn(process.execPath, [...NODE_FLAGS, BUNDLE], {
      cwd: path.join(appOf("gateway"), sourceDir("gateway")),
      // The broker carries access revocations; the gateway serves whether or not it answers.
      env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), METRICS_PORT: String(await freePort()), LOG_LEVEL: "warn", KAFKA_BROKERS, ...peers },
      stdio: "inherit",
    });
    const url = `http://127.0.0.1:${port}`;
    try {
      let alive = false;
      for (let attempt = 0; attempt < START_LIMIT_MS / 250 && !alive && child.exitCode === null; attempt++) {
        alive = await fetch(`${url}/healthz`).then((res) => res.ok, () => false);
        if (!alive) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const document = await fetch(`${url}/v2/openapi.json`);
      expect(document.status).toBe(200);
      expect(((await document.json()) as { openapi: string }).openapi).toBe("3.1.0");
      const renderer = await fetch(`${url}/docs/redoc.standalone.js`);
      expect(renderer.status).toBe(200);
      expect((await renderer.text()).length).toBeGreaterThan(100_000);
    } finally {
      child.kill("SIGTERM");
    }
  });
});
