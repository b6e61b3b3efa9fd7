/**
 * Creates per second through the gateway of a running `make dev`, with N concurrent clients
 * (default 8) for S seconds (default 20): `tsx scripts/bench/creates.ts [clients] [seconds]`.
 * A figure for the notes, not a test: nothing here asserts a speed.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const env = Object.fromEntries(
  readFileSync(path.join(ROOT, ".dev", "credentials.env"), "utf8")
    .split("\n")
    .filter((line) => /^[A-Z0-9_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
);
const clients = Number(process.argv[2] ?? 8);
const seconds = Number(process.argv[3] ?? 20);
const base = env.TAWSIL_BASE_URL ?? "http://localhost:8080";

const tokenRes = await fetch(`${base}/oauth/token`, {
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${env.TAWSIL_CLIENT_ID}:${env.TAWSIL_CLIENT_SECRET}`).toString("base64")}` },
  body: "grant_type=client_credentials",
});
const { access_token: token } = (await tokenRes.json()) as { access_token: string };
const run = randomUUID().slice(0, 8);

async function create(i: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${base}/v2/external/shipments`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      reference: `BENCH-${run}-${i}`,
      pickup: { savedLocationCode: env.TAWSIL_SAVED_LOCATION },
      destination: { latitude: 24.774265, longitude: 46.738586 },
      recipient: { name: "Bench", mobile: "0512345678" },
    }),
  });
  await res.arrayBuffer();
  if (res.status !== 201) throw new Error(`create answered ${res.status}`);
  return performance.now() - started;
}

let next = 0;
const latencies: number[] = [];
const deadline = performance.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: clients }, async () => {
    while (performance.now() < deadline) latencies.push(await create(next++));
  }),
);
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(0);
console.log(`${clients} clients, ${seconds} s: ${latencies.length} creates, ${(latencies.length / seconds).toFixed(1)} creates/s; latency p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms`);
