import { describe, expect, it } from "vitest";
import { ReadThroughCache } from "./read-through-cache";

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe("ReadThroughCache", () => {
  it("loads a key once for concurrent misses and serves later reads from memory", async () => {
    let loads = 0;
    const gate = deferred<string>();
    const cache = new ReadThroughCache<string>({ maxAgeMs: 60_000, load: () => (loads++, gate.promise) });
    const waiting = Promise.all([cache.get("m1"), cache.get("m1"), cache.get("m1")]);
    gate.resolve("v1");
    expect(await waiting).toEqual(["v1", "v1", "v1"]);
    expect(await cache.get("m1")).toBe("v1");
    expect(loads).toBe(1);
  });

  it("reads again after an invalidation", async () => {
    let version = 0;
    const cache = new ReadThroughCache<number>({ maxAgeMs: 60_000, load: async () => ++version });
    expect(await cache.get("m1")).toBe(1);
    cache.invalidate("m1");
    expect(await cache.get("m1")).toBe(2);
    expect(await cache.get("m1")).toBe(2);
  });

  it("never keeps a load that was in flight when its key was invalidated", async () => {
    const first = deferred<string>();
    let calls = 0;
    const cache = new ReadThroughCache<string>({ maxAgeMs: 60_000, load: () => (++calls === 1 ? first.promise : Promise.resolve("fresh")) });
    const stale = cache.get("m1");
    cache.invalidate("m1");
    first.resolve("stale");
    expect(await stale).toBe("stale");
    expect(await cache.get("m1")).toBe("fresh");
    expect(calls).toBe(2);
  });

  it("does not keep what is missing, nor failures", async () => {
    let calls = 0;
    const cache = new ReadThroughCache<string>({
      maxAgeMs: 60_000,
      load: async () => {
        calls++;
        if (calls === 1) return undefined;
        if (calls === 2) throw new Error("peer down");
        return "there";
      },
    });
    expect(await cache.get("m1")).toBeUndefined();
    await expect(cache.get("m1")).rejects.toThrow("peer down");
    expect(await cache.get("m1")).toBe("there");
    expect(calls).toBe(3);
  });

  it("trusts an entry no longer than maxAgeMs, and clear() drops everything", async () => {
    let now = 0;
    let calls = 0;
    const cache = new ReadThroughCache<number>({ maxAgeMs: 1000, now: () => now, load: async () => ++calls });
    expect(await cache.get("a")).toBe(1);
    now = 999;
    expect(await cache.get("a")).toBe(1);
    now = 1000;
    expect(await cache.get("a")).toBe(2);
    cache.clear();
    expect(cache.size).toBe(0);
    expect(await cache.get("a")).toBe(3);
  });

  it("keeps at most maxEntries, dropping the oldest", async () => {
    const cache = new ReadThroughCache<string>({ maxAgeMs: 60_000, maxEntries: 2, load: async (key) => key });
    await cache.get("a");
    await cache.get("b");
    await cache.get("c");
    expect(cache.size).toBe(2);
  });
});
