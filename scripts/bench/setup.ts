/** Setting up a bench run: the stack's options, the baseline processes, a token, seeded data. */
import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { decodeJwt } from "jose";
import { freePort } from "../../packages/testing/src/free-port";
import { devDatabasePrefix } from "../checkout/namespace";
import type { DevStackOptions } from "../dev";
import { SERVICES } from "../../packages/topology/src";
import { freeSidePorts, sidePortsFrom } from "../../packages/testing/src/mesh";
import { readDotenv } from "../../packages/testing/src/seed-dev";
import { call } from "../../packages/testing/src/load/driver";
import { BENCH_ENV } from "../../packages/testing/src/load/bench-env";
import type { BenchSettings } from "./settings";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");


/**
 * `make dev`'s stack in its own state folder (.dev/bench), databases (`<prefix>bench_`, the
 * prefix of `make dev`'s databases, namespaced per checkout) and ports (free ones unless fixed),
 * so a `make dev` of the same checkout, and any other checkout, runs on undisturbed.
 */
export async function benchStackOptions(settings: BenchSettings): Promise<Omit<DevStackOptions, "log">> {
  const first = settings.firstServicePort;
  const servicePorts = first ? SERVICES.map((_, i) => first + i) : await Promise.all(SERVICES.map(() => freePort()));
  return {
    stateDir: path.join(ROOT, ".dev", "bench"),
    dbPrefix: `${devDatabasePrefix(ROOT)}bench_`,
    gatewayPort: settings.gatewayPort ?? (await freePort()),
    servicePorts,
    sidePorts: first ? sidePortsFrom(first) : await freeSidePorts(freePort),
    kafkaPort: settings.kafkaPort ?? (await freePort()),
    kafkaControllerPort: settings.kafkaPort ? settings.kafkaPort + 1 : await freePort(),
    ...(process.env.DATABASE_ADMIN_URL ? { adminUrl: process.env.DATABASE_ADMIN_URL } : {}),
    env: BENCH_ENV,
    // Every run starts from empty databases (the warm-start measurement then reuses them).
    freshDatabases: true,
    // A busy machine starts seven processes slowly; the start-up figures say how slowly.
    readyTimeoutMs: 300_000,
  };
}

export interface Child {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** A baseline as its own Node process on a free port; resolves once it prints "listening". */
export async function startChild(name: string, script: string, env: Record<string, string>, logDir: string): Promise<Child> {
  const port = await freePort();
  mkdirSync(logDir, { recursive: true });
  const child = spawn(process.execPath, ["--import", "tsx", script], { cwd: ROOT, env: { ...process.env, ...env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  const log = createWriteStream(path.join(logDir, `${name}.log`), { flags: "a" });
  child.stderr?.pipe(log);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 60 s; see its log`)), 60_000);
    child.once("exit", (code) => reject(new Error(`${name} exited (${code}) before listening; see its log`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      log.write(chunk);
      if (chunk.toString().includes("listening")) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return { name, url: `http://127.0.0.1:${port}`, child, stop };
}

/** The bench merchant's token through POST /oauth/token, with the credentials the seeding wrote. */
export async function benchToken(gateway: string, credentialsFile: string): Promise<{ token: string; merchantId: string; issuer: string; audience: string; savedLocationCode: string }> {
  const creds = readDotenv(credentialsFile);
  const basic = Buffer.from(`${creds.TAWSIL_CLIENT_ID}:${creds.TAWSIL_CLIENT_SECRET}`).toString("base64");
  const res = await call(gateway, {
    method: "POST",
    path: "/oauth/token",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  const token = (res.body as { access_token?: string }).access_token;
  if (res.status !== 200 || !token) throw new Error(`POST /oauth/token answered ${res.status}`);
  const claims = decodeJwt(token);
  return {
    token,
    merchantId: String(claims.merchant_id),
    issuer: String(claims.iss),
    audience: String(Array.isArray(claims.aud) ? claims.aud[0] : claims.aud),
    savedLocationCode: creds.TAWSIL_SAVED_LOCATION ?? "RUH-WH-01",
  };
}

/** `n` values picked at random (with repeats when fewer exist). */
export function sampleOf<T>(values: readonly T[], n: number): T[] {
  if (values.length === 0) return [];
  return Array.from({ length: n }, () => values[Math.floor(Math.random() * values.length)]!);
}
