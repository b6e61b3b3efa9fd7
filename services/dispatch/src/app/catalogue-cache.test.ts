import { Writable } from "node:stream";
import { createLogger } from "@tawsil/logging";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Catalogue } from "../domain/catalogue";
import type { LoadedCatalogue } from "./ports";
import { CatalogueCache } from "./catalogue-cache";

function catalogueOf(version: number): Catalogue {
  return { carriers: [{ id: `carrier-${version}`, code: `C${version}`, active: true, services: [] }] };
}

function logger() {
  const lines: { level: string; message: string }[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as { level: string; message: string });
      done();
    },
  });
  return { logger: createLogger({ service: "cache-test", level: "debug", destination }), lines };
}

/** A load whose answers the test scripts: a catalogue version, or an error. */
function scriptedLoad(answers: (number | Error)[]) {
  const calls = { count: 0 };
  const load = async (): Promise<LoadedCatalogue> => {
    const answer = answers[Math.min(calls.count++, answers.length - 1)];
    if (answer === undefined || answer instanceof Error) throw answer ?? new Error("no answer");
    return { catalogue: catalogueOf(answer), unknownRequirements: [] };
  };
  return { load, calls };
}

let cache: CatalogueCache | undefined;
beforeEach(() => vi.useFakeTimers());
afterEach(async () => {
  await cache?.close();
  vi.useRealTimers();
});

describe("CatalogueCache", () => {
  it("fails to start when the first load fails, and has nothing to serve", async () => {
    const { load } = scriptedLoad([new Error("connection refused")]);
    cache = new CatalogueCache({ load, refreshMs: 1000, logger: logger().logger });
    await expect(cache.start()).rejects.toThrow("connection refused");
    expect(() => cache?.current()).toThrow(/not been loaded/);
  });

  it("serves the loaded catalogue without loading again until the period has passed", async () => {
    const { load, calls } = scriptedLoad([1, 2]);
    cache = new CatalogueCache({ load, refreshMs: 1000, logger: logger().logger });
    await cache.start();
    for (let i = 0; i < 100; i++) expect(cache.current()).toEqual(catalogueOf(1));
    expect(calls.count).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(calls.count).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.count).toBe(2);
    expect(cache.current()).toEqual(catalogueOf(2));
  });

  it("keeps the last good catalogue when a refresh fails, logs it, and recovers on the next period", async () => {
    const { load, calls } = scriptedLoad([1, new Error("database unavailable"), 3]);
    const { logger: log, lines } = logger();
    cache = new CatalogueCache({ load, refreshMs: 1000, logger: log });
    await cache.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls.count).toBe(2);
    expect(cache.current()).toEqual(catalogueOf(1));
    expect(lines.filter((line) => line.level === "error").map((line) => line.message)).toEqual([
      "carrier catalogue refresh failed; serving the last one loaded",
    ]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(cache.current()).toEqual(catalogueOf(3));
  });

  it("never overlaps loads: the next period starts when the last load ends", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const load = async (): Promise<LoadedCatalogue> => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2500));
      inFlight--;
      return { catalogue: catalogueOf(1), unknownRequirements: [] };
    };
    cache = new CatalogueCache({ load, refreshMs: 1000, logger: logger().logger });
    const started = cache.start();
    await vi.advanceTimersByTimeAsync(2500);
    await started;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(maxInFlight).toBe(1);
  });

  it("stops refreshing once closed", async () => {
    const { load, calls } = scriptedLoad([1]);
    cache = new CatalogueCache({ load, refreshMs: 1000, logger: logger().logger });
    await cache.start();
    await cache.close();
    await vi.advanceTimersByTimeAsync(5000);
    expect(calls.count).toBe(1);
  });

  it("logs counts and unknown requirement values, never a carrier's identity", async () => {
    const { logger: log, lines } = logger();
    const load = async (): Promise<LoadedCatalogue> => ({ catalogue: catalogueOf(7), unknownRequirements: ["HAZMAT"] });
    cache = new CatalogueCache({ load, refreshMs: 1000, logger: log });
    await cache.start();
    await vi.advanceTimersByTimeAsync(1000);
    const text = lines.map((line) => JSON.stringify(line)).join("\n");
    expect(text).toContain("HAZMAT");
    expect(text).toContain('"carriers":1');
    expect(text).not.toContain("carrier-7");
    expect(text).not.toContain("C7");
  });
});
