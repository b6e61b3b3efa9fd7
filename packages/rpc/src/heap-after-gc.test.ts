import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { registerHeapAfterGc } from "./heap-after-gc";

v8.setFlagsFromString("--expose-gc");
const collect = runInNewContext("gc") as () => void;
const figure = async (registry: Registry) => (await registry.getSingleMetric("nodejs_heap_used_after_major_gc_bytes")!.get()).values[0]?.value;

describe("the heap a process keeps", () => {
  it("is read after a major collection: garbage made since does not count, and what is kept does", async () => {
    const registry = new Registry();
    registerHeapAfterGc(registry);
    collect();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const base = await figure(registry);
    expect(base).toBeGreaterThan(0);

    let garbage: number[][] | undefined = Array.from({ length: 200 }, () => Array.from({ length: 10_000 }, (_, i) => i));
    expect(garbage.length).toBe(200);
    garbage = undefined;
    expect(await figure(registry)).toBe(base); // 16 MiB of garbage made, no collection yet: unchanged

    const kept = Array.from({ length: 200 }, () => Array.from({ length: 10_000 }, (_, i) => i + 0.5));
    collect();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await figure(registry))! - base!).toBeGreaterThan(10 * 1024 * 1024);
    expect(kept.length).toBe(200);
  });
});
