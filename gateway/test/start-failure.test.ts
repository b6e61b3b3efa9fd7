import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The gateway's process is shaped like every service's (runProcess): a failure to start, such as
 * a port already taken, is one fatal log line and exit 1, not an unhandled rejection of a
 * top-level await. Runs the bundle `make build` makes, as a pod does.
 */
const BUNDLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "dist", "main.mjs");
const SERVICES = ["merchant", "shipment", "pricing", "dispatch", "tracking", "webhook"];
let taken: net.Server;
let port = 0;

beforeAll(async () => {
  const built = statSync(BUNDLE).mtimeMs;
  for (const source of ["main.ts", "server.ts"]) expect(statSync(path.join(path.dirname(BUNDLE), "..", "src", source)).mtimeMs, "a stale bundle: run make build").toBeLessThanOrEqual(built);
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  port = (taken.address() as net.AddressInfo).port;
});
afterAll(() => new Promise((resolve) => taken.close(resolve)));

describe("the gateway's process", () => {
  it("logs a fatal line and exits 1 when its port is taken", { timeout: 30_000 }, () => {
    const env = {
      PATH: process.env.PATH,
      HOST: "127.0.0.1",
      PORT: String(port),
      METRICS_PORT: "0",
      KAFKA_BROKERS: "127.0.0.1:1",
      PUBLIC_BASE_URL: "https://api.tawsil.test",
      ...Object.fromEntries(SERVICES.map((name) => [`${name.toUpperCase()}_SERVICE_URL`, "http://127.0.0.1:9"])),
    };
    const run = spawnSync(process.execPath, [BUNDLE], { env, encoding: "utf8", timeout: 20_000 });
    expect(run.status).toBe(1);
    const lines = run.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { level: string; message: string; err?: { code?: string } });
    const fatal = lines.find((line) => line.level === "fatal");
    expect(fatal).toMatchObject({ message: "gateway failed to start", err: { code: "EADDRINUSE" } });
    expect(run.stderr).not.toMatch(/Unhandled|ERR_UNHANDLED_REJECTION/);
  });
});
