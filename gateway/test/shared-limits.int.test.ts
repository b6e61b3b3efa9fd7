/**
 * Each limit holds for the deployment, not per gateway replica (decisions.md section 14, issue 32):
 * two gateway replicas sharing one Redis (RATE_LIMIT_REDIS_URL) give a client each limit once,
 * while two replicas counting in their own memory (no RATE_LIMIT_REDIS_URL: make dev, a single
 * gateway) give it twice, which these tests assert too, as the reason the shared store exists.
 * Then Redis hangs, and dies: requests are still answered (no 5xx), limited by each replica's
 * memory, and gateway_rate_limit_store_errors_total rises; readiness does not depend on Redis.
 *
 * The replicas are in-process gateways in front of one real merchant service; the tracking
 * service is absent, so a public read the limits let through answers 503 and a refused one 429.
 */
import { startRedisServer, type RedisServer } from "@tawsil/testing";
import type { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { alternate as alternateProbes, asClient, codesFrom, countOf, failedAuthenticationOf, tokenRequestFrom, tokenRequestOf, trackingRead } from "./support/limit-probes";
import { accessToken, startStack, type Credentials, type Stack } from "./support/stack";

const BURST = 200;
const TOKEN_PER_MINUTE = 20;
const PER_CODE = 12;
/** Per address: above what the other tests send from 127.0.0.1, so only the tests from an X-Forwarded-For address of their own reach them. */
const TOKEN_PER_ADDRESS = 150;
const TRACKING_PER_ADDRESS = 100;
let redis: RedisServer;
let stack: Stack;
/** Two replicas sharing the Redis, and two counting in memory (the stack's first gateway and one more). */
let shared: [{ baseUrl: string; registry: Registry }, { baseUrl: string; registry: Registry }];
let memory: [string, string];

beforeAll(async () => {
  redis = await startRedisServer();
  stack = await startStack({
    adminUrl: inject("databaseAdminUrl"),
    environment: "sandbox",
    // A bucket that refills slower than the test runs, so what gets through is the burst alone.
    gatewayEnv: {
      RATE_LIMIT_BURST: String(BURST),
      RATE_LIMIT_PER_SECOND: "0.01",
      TOKEN_RATE_LIMIT_PER_MINUTE: String(TOKEN_PER_MINUTE),
      TOKEN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: String(TOKEN_PER_ADDRESS),
      PUBLIC_TRACKING_RATE_LIMIT_PER_MINUTE: String(PER_CODE),
      PUBLIC_TRACKING_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: String(TRACKING_PER_ADDRESS),
      TRUSTED_PROXY_CIDRS: "127.0.0.1/32,::1/128",
    },
  });
  // A deadline that a loaded test machine meets: these tests are about sharing, the fallback has its own.
  const withRedis = { RATE_LIMIT_REDIS_URL: redis.url, RATE_LIMIT_REDIS_TIMEOUT_MS: "1000" };
  shared = [await stack.addReplica(withRedis), await stack.addReplica(withRedis)];
  memory = [stack.baseUrl, (await stack.addReplica()).baseUrl];
});
afterAll(async () => {
  await stack?.close();
  await redis?.stop();
});

async function storeErrors(registry: Registry): Promise<number> {
  const metric = registry.getSingleMetric("gateway_rate_limit_store_errors_total");
  return metric ? ((await metric.get()).values[0]?.value ?? 0) : 0;
}

/** A client of its own with the write scope (each test spends a burst of its own). */
async function newClient(): Promise<Credentials> {
  const created = await stack.admin.createClient({ merchantCode: stack.merchant.code, name: `limits ${Math.random()}`, scopes: ["shipments:write"] });
  return { clientId: created.client!.clientId, clientSecret: created.clientSecret };
}

/** `count` guarded requests of one token, alternating between `bases`; the statuses in order. */
const alternate = (bases: readonly string[], token: string, count: number) => alternateProbes(bases, count, asClient(token, "/test/needs-write"));

describe("two gateway replicas sharing one Redis", () => {
  it("give a client alternating between them its burst once, within 10%; in memory, twice", async () => {
    const token = await accessToken(stack.baseUrl, await newClient());
    const statuses = await alternate(shared.map((r) => r.baseUrl), token, BURST * 2);
    const passed = countOf(statuses, 200);
    console.log(`per-client burst ${BURST} over two replicas: ${passed} passed with Redis`);
    expect(countOf(statuses, 200) + countOf(statuses, 429)).toBe(BURST * 2);
    expect(passed).toBeGreaterThanOrEqual(BURST * 0.9);
    expect(passed).toBeLessThanOrEqual(BURST * 1.1);
    const refused = await fetch(`${shared[1].baseUrl}/test/needs-write`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("ratelimit-policy")).toBe(`"client";q=${BURST};w=${BURST / 0.01}`);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    for (const replica of shared) expect(await storeErrors(replica.registry)).toBe(0);

    // The same client behaviour against two replicas that count in their own memory: each gives the whole burst.
    const inMemory = await alternate(memory, await accessToken(stack.baseUrl, await newClient()), BURST * 3);
    console.log(`per-client burst ${BURST} over two replicas: ${countOf(inMemory, 200)} passed in memory`);
    expect(countOf(inMemory, 200)).toBe(BURST * 2);
  });

  it("hold the token endpoint's per-client-id limit across them; in memory, twice", async () => {
    const ask = (bases: readonly string[], clientId: string) => alternateProbes(bases, TOKEN_PER_MINUTE * 3, tokenRequestOf(clientId));
    const withRedis = await ask(
      shared.map((r) => r.baseUrl),
      `tws_ci_${"A".repeat(22)}`,
    );
    expect(withRedis).toEqual([...Array<number>(TOKEN_PER_MINUTE).fill(400), ...Array<number>(TOKEN_PER_MINUTE * 2).fill(429)]);
    const inMemory = await ask(memory, `tws_ci_${"B".repeat(22)}`);
    expect(inMemory).toEqual([...Array<number>(TOKEN_PER_MINUTE * 2).fill(400), ...Array<number>(TOKEN_PER_MINUTE).fill(429)]);
  });

  it("lock a client id after five failed authentications across them; in memory, after ten", async () => {
    const fail = (bases: readonly string[], clientId: string) =>
      alternateProbes(bases, 12, failedAuthenticationOf(clientId), (res) => {
        if (res.status === 429) expect(res.headers.get("ratelimit-policy")).toBe('"auth-failures";q=5;w=60');
      });
    expect(await fail(shared.map((r) => r.baseUrl), "lock-me-shared")).toEqual([...Array<number>(5).fill(401), ...Array<number>(7).fill(429)]);
    expect(await fail(memory, "lock-me-in-memory")).toEqual([...Array<number>(10).fill(401), ...Array<number>(2).fill(429)]);
  });

  it("hold public tracking's per-code limit across them; in memory, twice", async () => {
    const read = (bases: readonly string[], code: string) => alternateProbes(bases, PER_CODE * 3, trackingRead(() => code));
    const withRedis = await read(shared.map((r) => r.baseUrl), "S".repeat(43));
    expect(countOf(withRedis, 429)).toBe(PER_CODE * 2);
    expect(withRedis.slice(PER_CODE).every((s) => s === 429)).toBe(true);
    const inMemory = await read(memory, "M".repeat(43));
    expect(countOf(inMemory, 429)).toBe(PER_CODE);
  });
});

describe("two gateway replicas sharing one Redis, per client address", () => {
  it("hold the token endpoint's per-address limit across them; in memory, twice", async () => {
    const ask = (bases: readonly string[], address: string) =>
      alternateProbes(bases, TOKEN_PER_ADDRESS * 2 + 10, tokenRequestFrom(address), (res) => {
        if (res.status === 429) expect(res.headers.get("ratelimit-policy")).toBe(`"token-address";q=${TOKEN_PER_ADDRESS};w=60`);
      });
    const withRedis = await ask(shared.map((r) => r.baseUrl), "203.0.113.77");
    expect(countOf(withRedis, 400)).toBe(TOKEN_PER_ADDRESS);
    expect(withRedis.slice(TOKEN_PER_ADDRESS).every((s) => s === 429)).toBe(true);
    expect(countOf(await ask(memory, "203.0.113.78"), 400)).toBe(TOKEN_PER_ADDRESS * 2);
  });

  it("hold public tracking's per-address limit across codes across them; in memory, twice", async () => {
    const read = (bases: readonly string[], address: string) => alternateProbes(bases, TRACKING_PER_ADDRESS * 2 + 10, trackingRead(codesFrom(address), address));
    const withRedis = await read(shared.map((r) => r.baseUrl), "198.51.100.7");
    expect(withRedis.length - countOf(withRedis, 429)).toBe(TRACKING_PER_ADDRESS);
    expect(countOf(await read(memory, "198.51.100.8"), 429)).toBe(10);
  });
});

describe("when the shared Redis hangs or dies", () => {
  it("answers every request without waiting on it, limited by each replica's memory, and counts the errors", async () => {
    const bases = shared.map((r) => r.baseUrl);
    const before = await Promise.all(shared.map((r) => storeErrors(r.registry)));
    const token = await accessToken(stack.baseUrl, await newClient());
    expect(countOf(await alternate(bases, token, 20), 200)).toBe(20);

    // Hung: the first call on each replica gives up at its deadline (1 s here); after that no
    // request waits on Redis, while a background probe finds when it answers again.
    redis.pause();
    const slow: number[] = [];
    const hung: number[] = [];
    for (let i = 0; i < 40; i++) {
      const started = Date.now();
      hung.push(...(await alternate([bases[i % 2]!], token, 1)));
      slow.push(Date.now() - started);
    }
    redis.resume();
    expect(hung.every((s) => s === 200)).toBe(true);
    const waited = slow.filter((ms) => ms >= 900).length;
    console.log(`40 requests with Redis hung: ${waited} waited a deadline, the others took at most ${Math.max(...slow.filter((ms) => ms < 900))} ms`);
    expect(waited).toBeLessThanOrEqual(2);

    await redis.kill();
    const dead = await alternate(bases, await accessToken(stack.baseUrl, await newClient()), BURST * 3);
    expect(dead.every((s) => s === 200 || s === 429)).toBe(true);
    // Each replica limits from its own memory: the burst on each, not unlimited.
    expect(countOf(dead, 200)).toBe(BURST * 2);
    const after = await Promise.all(shared.map((r) => storeErrors(r.registry)));
    for (let i = 0; i < 2; i++) expect(after[i]! - before[i]!).toBeGreaterThanOrEqual(BURST);
    // Readiness does not depend on Redis.
    for (const base of bases) expect((await fetch(`${base}/readyz`)).status).toBe(200);

    // Back on the same port, the replicas reconnect and share their limits again.
    redis = await startRedisServer({ port: redis.port });
    const back = await alternate(bases, await accessToken(stack.baseUrl, await newClient()), 4);
    expect(back.every((s) => s === 200)).toBe(true);
    let settled = false;
    for (let i = 0; i < 100 && !settled; i++) {
      const errors = await Promise.all(shared.map((r) => storeErrors(r.registry)));
      await alternate(bases, token, 2);
      const later = await Promise.all(shared.map((r) => storeErrors(r.registry)));
      settled = later[0] === errors[0] && later[1] === errors[1];
      if (!settled) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(settled).toBe(true);
  });
});
