import { createSocket } from "node:dgram";
import { readFile } from "node:fs/promises";
import { DependencyUnavailableError } from "@tawsil/errors";
import { describe, expect, it } from "vitest";
import { aresQuery, DnsResolver, type Query } from "./dns-resolver";

const failing = (code: string): Query => async () => Promise.reject(Object.assign(new Error(`query${code} host`), { code }));

describe("DnsResolver", () => {
  it.each(["ENOTFOUND", "ENODATA"])("resolves a name without addresses (%s) to nothing", async (code) => {
    expect(await new DnsResolver(failing(code)).resolve("nowhere.example")).toEqual([]);
  });

  it.each(["ESERVFAIL", "ETIMEOUT", "ECONNREFUSED", "EREFUSED"])("reports %s as the resolver being unavailable, not as a name that does not resolve", async (code) => {
    await expect(new DnsResolver(failing(code)).resolve("hooks.example")).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it("stops waiting at its deadline", async () => {
    const started = Date.now();
    await expect(new DnsResolver(() => new Promise(() => {}), 50).resolve("slow.example")).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("answers every address of the name, A and AAAA", async () => {
    const resolver = new DnsResolver(async (_name, family) => (family === 4 ? ["93.184.216.34"] : ["2606:2800:220:1::1"]));
    expect(await resolver.resolve("hooks.example")).toEqual([
      { address: "93.184.216.34", family: 4 },
      { address: "2606:2800:220:1::1", family: 6 },
    ]);
  });

  it("answers localhost names as loopback without asking DNS (RFC 6761)", async () => {
    const resolver = new DnsResolver(failing("ESERVFAIL"));
    expect((await resolver.resolve("hooks.localhost")).map((a) => a.address)).toEqual(["127.0.0.1", "::1"]);
  });

  it("holds no thread of libuv's pool while a name server never answers", async () => {
    // A name server that swallows every query: getaddrinfo would hold one of the pool's four
    // threads per lookup until it gave up, and file reads queued behind them.
    const blackHole = createSocket("udp4");
    await new Promise<void>((resolve) => blackHole.bind(0, "127.0.0.1", resolve));
    try {
      const resolver = new DnsResolver(aresQuery({ servers: [`127.0.0.1:${blackHole.address().port}`], deadlineMs: 1500 }), 1500);
      const lookups = Array.from({ length: 16 }, (_, i) => resolver.resolve(`hook-${i}.never.example`).then(() => "resolved", (error: unknown) => error));
      const started = performance.now();
      for (let i = 0; i < 8; i++) await readFile(import.meta.filename);
      expect(performance.now() - started).toBeLessThan(500);
      for (const outcome of await Promise.all(lookups)) expect(outcome).toBeInstanceOf(DependencyUnavailableError);
    } finally {
      blackHole.close();
    }
  });
});
