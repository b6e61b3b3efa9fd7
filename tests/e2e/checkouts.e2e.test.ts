/**
 * Issue 18: `make dev` in one checkout never breaks another's. Two clones of this repository on
 * one machine, one PostgreSQL server: A runs, then B (which once dropped and re-created A's
 * databases with its own secrets, so A's merchant could no longer open its signing keys), then A
 * again; B refuses at once to start on ports A holds; A and B run side by side; local data that
 * the local secrets cannot open is reported before anything starts, and `make dev-reset` drops
 * only its own checkout's databases.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SERVICES_WITH_DATABASE } from "@tawsil/topology";
import { cloneCheckout, credentialsOf, type DevPorts, type DevRun, freeDevPorts, makeDev, makeDevReset, processesIn, tokenThrough, untilRunning } from "./support/checkout";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const STARTUP_MS = 300_000;
const adminUrl = inject("databaseAdminUrl");
const parent = realpathSync(mkdtempSync(path.join(os.tmpdir(), "tawsil-checkouts-")));
const a = path.join(parent, "a");
const b = path.join(parent, "b");
let portsA: DevPorts;
let portsB: DevPorts;
const running: DevRun[] = [];

const envOf = (ports: DevPorts) => ({ DATABASE_ADMIN_URL: adminUrl, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) });

function start(dir: string, ports: DevPorts): DevRun {
  const dev = makeDev(dir, envOf(ports));
  running.push(dev);
  return dev;
}

/** The prefix `make dev` printed for its databases ("databases tawsil_<namespace>_<service>"). */
function databasePrefix(dev: DevRun): string {
  const prefix = /databases (\S+)<service>/.exec(dev.output())?.[1];
  if (!prefix) throw new Error(`make dev named no databases:\n${dev.output()}`);
  return prefix;
}

/** The databases a checkout's `make dev` owns: one per service that owns data, in name order. */
const ownDatabases = (prefix: string) => SERVICES_WITH_DATABASE.map((service) => `${prefix}${service}`).sort();

async function databasesNamed(prefix: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname", [prefix]);
    return rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

async function readyz(ports: DevPorts): Promise<number> {
  return (await fetch(`http://127.0.0.1:${ports.GATEWAY_PORT}/readyz`)).status;
}

async function meStatus(ports: DevPorts, token: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${ports.GATEWAY_PORT}/v2/external/me`, { headers: { authorization: `Bearer ${token}` } })).status;
}

beforeAll(async () => {
  [portsA, portsB] = [await freeDevPorts(), await freeDevPorts()];
  await Promise.all([cloneCheckout(ROOT, a), cloneCheckout(ROOT, b)]);
}, 600_000);

afterAll(async () => {
  await Promise.all(running.map((dev) => dev.interrupt()));
  // Drops what the clones created (A's are already gone unless the test failed first).
  for (const dir of [a, b]) if (existsSync(dir)) await makeDevReset(dir, envOf(portsA));
  rmSync(parent, { recursive: true, force: true });
}, 180_000);

describe("two checkouts of the repository on one machine", () => {
  let prefixA = "";
  let prefixB = "";
  let devB: DevRun;
  let devA: DevRun;

  it("A runs, and writes the gateway's address to its credentials", async () => {
    const dev = start(a, portsA);
    await untilRunning(dev, STARTUP_MS);
    prefixA = databasePrefix(dev);
    expect(await readyz(portsA)).toBe(200);
    expect(credentialsOf(a).TAWSIL_BASE_URL).toBe(`http://localhost:${portsA.GATEWAY_PORT}`);
    expect((await tokenThrough(credentialsOf(a))).status).toBe(200);
    await dev.interrupt();
    expect(dev.output()).toMatch(/\] stopped$/m);
    expect(processesIn(a)).toEqual([]);
  }, STARTUP_MS + 60_000);

  it("B runs on databases of its own, leaving A's alone", async () => {
    const before = await databasesNamed(prefixA);
    devB = start(b, portsB);
    await untilRunning(devB, STARTUP_MS);
    prefixB = databasePrefix(devB);
    expect(prefixB).not.toBe(prefixA);
    expect(await databasesNamed(prefixA)).toEqual(before);
    expect(await databasesNamed(prefixB)).toEqual(ownDatabases(prefixB));
  }, STARTUP_MS + 60_000);

  it("A refuses at once to start on the ports B holds, naming B and the settings, and B runs on", async () => {
    const clash = start(a, portsB);
    expect(await clash.exited).not.toBe(0);
    expect(clash.output()).toContain(`held by make dev of the checkout ${b}`);
    expect(clash.output()).toMatch(/GATEWAY_PORT.*FIRST_SERVICE_PORT.*KAFKA_PORT.*KAFKA_CONTROLLER_PORT/s);
    expect(clash.output()).not.toContain("starting Kafka");
    expect(await readyz(portsB)).toBe(200);
  }, 120_000);

  it("A starts again on its own data (its merchant opens its signing keys) while B runs, and both issue tokens", async () => {
    devA = start(a, portsA);
    await untilRunning(devA, STARTUP_MS);
    expect(await readyz(portsA)).toBe(200);
    expect(await readyz(portsB)).toBe(200);
    const [tokenA, tokenB] = [await tokenThrough(credentialsOf(a)), await tokenThrough(credentialsOf(b))];
    expect([tokenA.status, tokenB.status]).toEqual([200, 200]);
    // Each mesh signs with its own keys, in its own databases: a token is good at its own gateway only.
    expect(await meStatus(portsA, tokenA.token!)).toBe(200);
    expect(await meStatus(portsB, tokenA.token!)).toBe(401);
  }, STARTUP_MS + 60_000);

  it("Ctrl-C stops each, leaving no process behind", async () => {
    await Promise.all([devA.interrupt(), devB.interrupt()]);
    expect(devA.output()).toMatch(/\] stopped$/m);
    expect(devB.output()).toMatch(/\] stopped$/m);
    expect(processesIn(a)).toEqual([]);
    expect(processesIn(b)).toEqual([]);
  }, 120_000);

  it("A without its secrets says what happened and what to run, starting and dropping nothing", async () => {
    rmSync(path.join(a, ".dev", "secrets.env"));
    const dev = start(a, portsA);
    expect(await dev.exited).not.toBe(0);
    expect(dev.output()).toContain(".dev/secrets.env is gone");
    expect(dev.output()).toContain("make dev-reset");
    expect(dev.output()).not.toContain("starting Kafka");
    expect(await databasesNamed(prefixA)).toEqual(ownDatabases(prefixA));
    expect(processesIn(a)).toEqual([]);
  }, 120_000);

  it("make dev-reset drops A's databases and .dev, and nothing of B", async () => {
    const reset = await makeDevReset(a, envOf(portsA));
    expect(reset.code, reset.output).toBe(0);
    expect(await databasesNamed(prefixA)).toEqual([]);
    expect(existsSync(path.join(a, ".dev"))).toBe(false);
    expect(await databasesNamed(prefixB)).toEqual(ownDatabases(prefixB));
    expect(existsSync(path.join(b, ".dev", "secrets.env"))).toBe(true);
  }, 120_000);
});
