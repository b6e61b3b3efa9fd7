/**
 * The image's runtime stage is the tree the Dockerfile's build stage assembles in /runtime. These
 * tests assemble it with the Dockerfile's own command, from the bundles `make build` wrote, in a
 * temporary directory with no node_modules anywhere above it, and run processes from it as the
 * pods do: so a bundle that still needs an installed package, or a file the image leaves out,
 * fails here rather than in a cluster.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { databaseUrl, dropDatabase, ensureDatabase } from "../../packages/db/src/index";
import { freePort } from "../../packages/testing/src/free-port";
import { buildTargets, staleTargets } from "../../scripts/build";
import { BUNDLE, NODE_FLAGS } from "../../scripts/mesh";
import { FAKE_SECRET_VALUES, PROCESSES, type ProcessName, sourceDir } from "./facts";
import { ROOT } from "./kustomize";

/** The Dockerfile's command that copies the runtime files into /runtime, with its continuation lines joined. */
function runtimeCopyCommand(): string {
  const run = readFileSync(path.join(ROOT, "Dockerfile"), "utf8").replace(/\\\n/g, " ").split("\n").find((line) => line.includes("mkdir /runtime"));
  const copy = run?.split("&&").map((part) => part.trim()).find((part) => part.startsWith("find "));
  if (!copy) throw new Error("the Dockerfile no longer assembles /runtime with find: update this test");
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

let runtime = "";

beforeAll(() => {
  expect(staleTargets().map((target) => target.name), "stale or missing bundles: run make build").toEqual([]);
  runtime = mkdtempSync(path.join(os.tmpdir(), "tawsil-runtime-"));
  const copied = spawnSync("bash", ["-euo", "pipefail", "-c", runtimeCopyCommand().replaceAll("/runtime", runtime)], { cwd: ROOT, encoding: "utf8" });
  expect(copied.stderr).toBe("");
  expect(copied.status).toBe(0);
});

afterAll(() => {
  if (runtime) rmSync(runtime, { recursive: true, force: true });
});

describe("the image's runtime tree", () => {
  it("holds every bundle with its source map, the services' migrations and data files, the gateway's document and renderer, and nothing else", () => {
    const files = filesUnder(runtime);
    for (const target of buildTargets()) expect(files).toEqual(expect.arrayContaining([target.outfile, `${target.outfile}.map`]));
    const servicesDir = path.join(ROOT, "services");
    for (const service of readdirSync(servicesDir)) {
      for (const kept of ["prisma/migrations", "data"].filter((sub) => existsSync(path.join(servicesDir, service, sub)))) {
        const expected = filesUnder(path.join(servicesDir, service, kept)).map((file) => `services/${service}/${kept}/${file}`);
        expect(files).toEqual(expect.arrayContaining(expected));
      }
    }
    // The gateway's data/ (the OpenAPI document) and the renderer of /docs, copied beside its bundle.
    const gatewayFiles = [...filesUnder(path.join(ROOT, "gateway", "data")).map((file) => `gateway/data/${file}`), "gateway/dist/redoc.standalone.js"];
    expect(files).toEqual(expect.arrayContaining(gatewayFiles));
    const unexpected = files.filter(
      (file) =>
        !/^(gateway|services\/[^/]+|packages\/[^/]+)\/dist\/[^/]+\.mjs(\.map)?$/.test(file) &&
        !/^services\/[^/]+\/(prisma\/migrations|data)\//.test(file) &&
        !gatewayFiles.includes(file),
    );
    // No installed package, TypeScript, test, tool or make depfile.
    expect(unexpected).toEqual([]);
  });

  it.each(PROCESSES)("starts %s without node_modules; its stack traces point at the TypeScript", (name) => {
    // No settings at all: the process loads its whole bundle, then its config.ts refuses to start.
    const result = runNode(path.join(runtime, sourceDir(name)), [BUNDLE], {});
    const output = `${result.stdout}${result.stderr}`;
    expect(output).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find (module|package)/);
    expect(result.status).not.toBe(0);
    expect(output).toMatch(/ConfigError/);
    expect(output).toMatch(/packages\/config\/src\/[\w-]+\.ts:\d+:\d+/);
  }, START_LIMIT_MS + 10_000);
});

/** Starts a process from the runtime tree as its pod does; resolves once its /readyz answers 200. */
async function serve(name: ProcessName, env: Record<string, string>): Promise<{ url: string; stop(): Promise<number | null> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, BUNDLE], {
    cwd: path.join(runtime, sourceDir(name)),
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "warn", ...env },
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
  return { url, stop };
}

describe("processes served from the runtime tree", () => {
  const adminUrl = inject("databaseAdminUrl");
  // Merchant relays its outbox and pricing listens to merchant events: both reach the broker.
  const KAFKA_BROKERS = inject("kafkaBrokers").join(",");
  // Pricing owns no database: only merchant's is created.
  const names = { merchant: `tawsil_runtime_merchant_${process.pid}` };
  const migrate = (service: keyof typeof names) =>
    // As the migration Job does: workingDir /app, the migrations by their path in the image.
    runNode(runtime, [buildTargets().find((target) => target.name === "migrate-cli")?.outfile ?? "", databaseUrl(adminUrl, names[service]), `services/${service}/prisma/migrations`], {});

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
      const res = await fetch(`${merchant.url}/tawsil.merchant.v1.MerchantAdminService/GetMerchantByCode`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: "NO-SUCH-MERCHANT" }),
      });
      expect(await res.json()).toMatchObject({ code: "not_found" });
    } finally {
      expect(await merchant.stop()).toBe(0);
    }
  });

  it("pricing finds the data files it reads at start-up beside its bundle, with no database at all", { timeout: 2 * START_LIMIT_MS }, async () => {
    expect(existsSync(path.join(runtime, "services", "pricing", "prisma"))).toBe(false);
    const pricing = await serve("pricing", {
      MERCHANT_SERVICE_URL: "http://127.0.0.1:9",
      DISPATCH_SERVICE_URL: "http://127.0.0.1:9",
      KAFKA_BROKERS,
    });
    expect(await pricing.stop()).toBe(0);
  });

  it("the gateway serves its OpenAPI document and the /docs renderer from the tree, with no node_modules", { timeout: 2 * START_LIMIT_MS }, async () => {
    // The documentation needs no peer: the gateway runs alone, and is alive (not ready) without them.
    const port = await freePort();
    const peers = Object.fromEntries(["MERCHANT", "SHIPMENT", "PRICING", "DISPATCH", "TRACKING", "WEBHOOK"].map((s) => [`${s}_SERVICE_URL`, "http://127.0.0.1:9"]));
    const child = spawn(process.execPath, [...NODE_FLAGS, BUNDLE], {
      cwd: path.join(runtime, sourceDir("gateway")),
      env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "warn", ...peers },
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
