/**
 * The Redis scripts against a real Redis give the memory classes' answers for the same requests at
 * the same times (the scripts take the tests' clock; in service they read Redis's TIME): allowed,
 * remaining, Retry-After, reset and which limit refused, through refill, window slides, lockouts
 * and their expiry. Each scenario replays one sequence through both stores, each with limits of
 * its own, and also checks the figures the memory unit tests assert, so a common error cannot hide.
 */
import { createLogger } from "@tawsil/logging";
import { capturedLogger, freePort, startRedisServer, type RedisServer } from "@tawsil/testing";
import { Redis } from "ioredis";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryLimitStore, type Chain, type Verdict } from "./limit-store";
import { lockout, slidingWindow, tokenBucket, type Limit, type LockoutLimit } from "./limits";
import { RedisLimitStore } from "./redis-limit-store";

let server: RedisServer;
let store: RedisLimitStore;
let registry: Registry;
let direct: Redis;
let scenario = 0;

beforeAll(async () => {
  server = await startRedisServer();
  registry = new Registry();
  // A generous deadline: this compares answers, and a loaded test machine must not send one to the fallback.
  store = new RedisLimitStore({ url: server.url, timeoutMs: 1000, logger: createLogger({ service: "limits-test", level: "silent" }), registry });
  direct = new Redis(server.url);
  await waitUntilReady();
});
afterAll(async () => {
  await store?.close();
  direct?.disconnect();
  await server?.stop();
});

async function waitUntilReady(): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const verdict = await store.take([slidingWindow("probe", 1_000_000, 60)], ["probe"]);
    if ((await storeErrors()) === 0 && verdict.decision.allowed) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
    registry.resetMetrics();
  }
  throw new Error("the store never answered from Redis");
}

async function storeErrors(): Promise<number> {
  const metric = await registry.getSingleMetric("gateway_rate_limit_store_errors_total")!.get();
  return metric.values[0]?.value ?? 0;
}

type Step = { at: number; key: string } | { at: number; key: string; fail: true };

/** Replays `steps` through the memory store and the Redis store, each with `limits()` of its own; every verdict of both. */
async function replay(limits: () => readonly Limit[], steps: readonly Step[]): Promise<{ memory: Verdict[]; redis: Verdict[] }> {
  scenario++;
  const mine = limits();
  const theirs = limits();
  const memory = new MemoryLimitStore();
  const out = { memory: [] as Verdict[], redis: [] as Verdict[] };
  // Keys of a scenario of their own: Redis keeps state between scenarios.
  const keysFor = (chain: Chain, key: string) => chain.map(() => `s${scenario}:${key}`);
  for (const step of steps) {
    if ("fail" in step) {
      (mine.find((l) => l.kind === "lockout") as LockoutLimit).memory.recordFailure(`s${scenario}:${step.key}`, step.at);
      await store.recordFailure(theirs.find((l) => l.kind === "lockout") as LockoutLimit, `s${scenario}:${step.key}`, step.at);
      continue;
    }
    out.memory.push(memory.takeNow(mine, keysFor(mine, step.key), step.at));
    out.redis.push(await store.take(theirs, keysFor(theirs, step.key), step.at));
  }
  expect(await storeErrors()).toBe(0);
  return out;
}

/** What the two stores must agree on (the limits are distinct objects: compared by name). */
const answers = (verdicts: readonly Verdict[]) => verdicts.map((v) => ({ refusedBy: v.refusedBy?.name, ...v.decision }));

/** A reproducible sequence of times: gaps of 0 to `maxGapMs`, from a seeded generator. */
function times(count: number, maxGapMs: number, seed: number, start = 1_764_000_000_000): number[] {
  let state = seed;
  let at = start;
  return Array.from({ length: count }, () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    at += Math.floor((state / 2 ** 31) * maxGapMs);
    return at;
  });
}

describe("the Redis scripts decide as the memory limiters do", () => {
  it("token bucket: the burst at once, then the sustained rate, and when to retry (100/s, burst 200)", async () => {
    const t0 = 1_764_000_000_000;
    const steps = [...Array.from({ length: 201 }, () => ({ at: t0, key: "client" })), { at: t0 + 10, key: "client" }, { at: t0, key: "other" }];
    const { memory, redis } = await replay(() => [tokenBucket("client", 200, 100)], steps);
    expect(answers(redis)).toEqual(answers(memory));
    expect(redis.slice(0, 200).every((v) => v.decision.allowed)).toBe(true);
    expect(redis[200]!.decision).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(redis[200]!.refusedBy?.name).toBe("client");
    expect(redis[201]!.decision.allowed).toBe(true);
    expect(redis[202]!.decision).toMatchObject({ allowed: true, remaining: 199 });
  });

  it("token bucket: refills no further than its capacity, and a slow rate's Retry-After", async () => {
    const t0 = 1_764_000_005_000;
    const steps = [...Array.from({ length: 21 }, () => ({ at: t0, key: "id" })), { at: t0 + 3_600_000, key: "id" }];
    const { memory, redis } = await replay(() => [tokenBucket("slow", 20, 20 / 60)], steps);
    expect(answers(redis)).toEqual(answers(memory));
    expect(redis[20]!.decision).toMatchObject({ allowed: false, retryAfterSeconds: 3 });
    expect(redis[21]!.decision.remaining).toBe(19);
  });

  it("token bucket: 400 requests at uneven times with a fractional rate", async () => {
    const steps = times(400, 900, 7).map((at, i) => ({ at, key: i % 3 === 0 ? "a" : "b" }));
    const { memory, redis } = await replay(() => [tokenBucket("uneven", 5, 0.7)], steps);
    expect(answers(redis)).toEqual(answers(memory));
    const refused = redis.filter((v) => !v.decision.allowed).length;
    expect(refused).toBeGreaterThan(50);
    expect(refused).toBeLessThan(350);
  });

  it("sliding window: exactly the limit within any window, however slowly the requests come", async () => {
    const steps = [...Array.from({ length: 20 }, (_, i) => ({ at: i * 2900, key: "id" })), { at: 58_000, key: "id" }, { at: 60_000, key: "id" }, { at: 60_000, key: "other" }];
    const { memory, redis } = await replay(() => [slidingWindow("token", 20, 60)], steps);
    expect(answers(redis)).toEqual(answers(memory));
    expect(redis[20]!.decision).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 2 });
    expect(redis[21]!.decision.allowed).toBe(true);
    expect(redis[22]!.decision).toMatchObject({ allowed: true, remaining: 19, resetSeconds: 60 });
  });

  it("sliding window: 500 requests at uneven times, the window sliding past many of them", async () => {
    const steps = times(500, 700, 11).map((at) => ({ at, key: "code" }));
    const { memory, redis } = await replay(() => [slidingWindow("tracking-link", 120, 60)], steps);
    expect(answers(redis)).toEqual(answers(memory));
    expect(redis.some((v) => !v.decision.allowed)).toBe(true);
  });

  it("a chain: the first limit counts every request, the second only what the first let through", async () => {
    const steps = times(60, 300, 3).map((at, i) => ({ at, key: `code-${i % 2}` }));
    const { memory, redis } = await replay(() => [slidingWindow("tracking-address", 25, 60), slidingWindow("tracking-link", 10, 60)], steps);
    expect(answers(redis)).toEqual(answers(memory));
    expect(redis.filter((v) => v.refusedBy?.name === "tracking-link").length).toBeGreaterThan(0);
  });

  it("lockout: five failures within a minute lock the id for a minute, and it ends", async () => {
    const t0 = 10_000;
    const steps: Step[] = [
      ...[0, 1000, 2000, 3000].map((d) => ({ at: t0 + d, key: "c", fail: true as const })),
      { at: t0 + 4000, key: "c" },
      { at: t0 + 5000, key: "c", fail: true },
      { at: t0 + 5000, key: "c" },
      { at: t0 + 64_500, key: "c" },
      { at: t0 + 65_000, key: "c" },
    ];
    const chain = () => [slidingWindow("token-address", 100, 60), lockout("auth-failures", 5, 60, 60), slidingWindow("token", 20, 60)];
    const { memory, redis } = await replay(chain, steps);
    expect(answers(redis)).toEqual(answers(memory));
    expect(redis.map((v) => [v.refusedBy?.name, v.decision.retryAfterSeconds])).toEqual([
      [undefined, 0],
      ["auth-failures", 60],
      ["auth-failures", 1],
      [undefined, 0],
    ]);
    expect(redis[0]!.mayHaveFailures).toBe(true);
  });

  it("lockout: failures older than the window are forgotten", async () => {
    const steps: Step[] = [...[0, 1000, 2000, 3000].map((at) => ({ at, key: "c", fail: true as const })), { at: 64_000, key: "c", fail: true }, { at: 64_000, key: "c" }];
    const { memory, redis } = await replay(() => [lockout("auth-failures", 5, 60, 60)], steps);
    expect(answers(redis)).toEqual(answers(memory));
    expect(redis[0]!.decision.allowed).toBe(true);
  });
});

describe("the Redis scripts in service", () => {
  it("read Redis's own clock when given none", async () => {
    const window = [slidingWindow("clock", 1, 60)];
    expect((await store.take(window, ["k"])).decision.allowed).toBe(true);
    const refused = await store.take(window, ["k"]);
    expect(refused.decision).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.decision.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.decision.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it("give every key an expiry no longer than its state means something", async () => {
    const bucket = tokenBucket("ttl-bucket", 200, 100);
    const window = slidingWindow("ttl-window", 20, 60);
    const failures = lockout("ttl-lockout", 2, 60, 30);
    await store.take([bucket, window], ["k", "k"]);
    await store.recordFailure(failures, "k");
    const bucketTtl = await direct.pttl("tawsil:limits:ttl-bucket:k");
    expect(bucketTtl).toBeGreaterThan(0);
    expect(bucketTtl).toBeLessThanOrEqual(10 + 1000); // one token short of full: 10 ms, plus a second's margin
    const windowTtl = await direct.pttl("tawsil:limits:ttl-window:k");
    expect(windowTtl).toBeGreaterThan(59_000);
    expect(windowTtl).toBeLessThanOrEqual(60_000);
    expect(await direct.pttl("tawsil:limits:ttl-lockout:failures:k")).toBeLessThanOrEqual(60_000);
    await store.recordFailure(failures, "k");
    const lockTtl = await direct.pttl("tawsil:limits:ttl-lockout:lock:k");
    expect(lockTtl).toBeGreaterThan(29_000);
    expect(lockTtl).toBeLessThanOrEqual(30_000);
    expect(await direct.exists("tawsil:limits:ttl-lockout:failures:k")).toBe(0);
  });

  it("tell whether a success has failures to forget, and forget them", async () => {
    const failures = lockout("forget", 5, 60, 60);
    const chain = [failures];
    expect((await store.take(chain, ["k"])).mayHaveFailures).toBe(false);
    await store.recordFailure(failures, "k");
    expect((await store.take(chain, ["k"])).mayHaveFailures).toBe(true);
    await store.recordSuccess(failures, "k");
    expect((await store.take(chain, ["k"])).mayHaveFailures).toBe(false);
  });
});

describe("the Redis store without its Redis", () => {
  it("answers from this replica's memory at once, counts each request, and warns once per interval", async () => {
    const { logger, lines } = capturedLogger("limits-test");
    const errors = new Registry();
    // Nothing listens there: the connection is refused, and every request falls back.
    const lonely = new RedisLimitStore({ url: `redis://127.0.0.1:${await freePort()}`, timeoutMs: 50, logger, registry: errors });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const window = [slidingWindow("fallback", 3, 60)];
      const started = Date.now();
      const allowed: boolean[] = [];
      for (let i = 0; i < 50; i++) allowed.push((await lonely.take(window, ["k"])).decision.allowed);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(allowed).toEqual([true, true, true, ...Array<boolean>(47).fill(false)]);
      const counted = (await errors.getSingleMetric("gateway_rate_limit_store_errors_total")!.get()).values[0]?.value;
      expect(counted).toBe(50);
      const warnings = lines.filter((line) => line.includes("rate-limit store (Redis) unavailable"));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ level: "warn" });
    } finally {
      await lonely.close();
    }
  });
});
