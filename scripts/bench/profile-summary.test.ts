import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ownerOfSource, SourceMaps, summariseProfile, type CpuProfile } from "./profile-summary";
import { profilerEnv } from "./profiler";

describe("who owns a source file of a bundle", () => {
  it("names the package for pnpm's layout, the innermost one when packages nest", () => {
    expect(ownerOfSource("../../../node_modules/.pnpm/prom-client@15.1.3/node_modules/prom-client/lib/registry.js")).toBe("prom-client");
    expect(ownerOfSource("../../node_modules/.pnpm/@connectrpc+connect-node@2.2.0/node_modules/@connectrpc/connect-node/dist/esm/x.js")).toBe("@connectrpc/connect-node");
    expect(ownerOfSource("../../node_modules/.pnpm/@prisma+client@7.10.0_x/node_modules/node_modules/.pnpm/@prisma+debug@7/node_modules/@prisma/debug/index.js")).toBe("@prisma/debug");
  });

  it("names our packages, a service's generated Prisma client and a process's own code", () => {
    expect(ownerOfSource("../../../packages/rpc/src/server.ts")).toBe("@tawsil/rpc");
    expect(ownerOfSource("../src/infra/prisma/generated/internal/class.ts")).toBe("Prisma generated client");
    expect(ownerOfSource("../src/app/create-shipment.ts")).toBe("own code");
    expect(ownerOfSource("/work/x/services/dispatch/src/main.ts")).toBe("dispatch (own code)");
  });
});

describe("a profile's self time by owner", () => {
  // Node 1 is the root, 2 idle, 3 GC, 4 a node: built-in, 5 and 6 two functions of one bundle.
  const frame = (functionName: string, url = "", lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame("(root)") },
      { id: 2, callFrame: frame("(idle)") },
      { id: 3, callFrame: frame("(garbage collector)") },
      { id: 4, callFrame: frame("writev", "node:internal/stream_base_commons") },
      { id: 5, callFrame: frame("query", "file:///app/dist/main.mjs", 10) },
      { id: 6, callFrame: frame("handle", "file:///app/dist/main.mjs", 20) },
    ],
    // The time a sample stands for is the delta that follows it.
    samples: [2, 3, 4, 5, 5, 6, 2],
    timeDeltas: [0, 5000, 1000, 2000, 3000, 3000, 1000, 9999],
    startTime: 0,
    endTime: 25_000,
  };
  const maps = { sourceOf: (url: string, line: number) => (url.startsWith("file://") ? (line === 10 ? "../../node_modules/.pnpm/pg@8/node_modules/pg/lib/client.js" : "../src/app.ts") : undefined) };

  it("leaves idle out, maps bundle positions to packages and ranks owners and functions", () => {
    const summary = summariseProfile(profile, maps);
    expect(summary.wallMs).toBe(25);
    expect(summary.busyMs).toBe(10);
    expect(summary.owners).toEqual([
      { name: "pg", ms: 6 },
      { name: "node:stream_base_commons", ms: 2 },
      { name: "V8 garbage collector", ms: 1 },
      { name: "own code", ms: 1 },
    ]);
    expect(summary.functions[0]).toEqual({ name: "query (pg)", ms: 6 });
    expect(summariseProfile(profile, maps, 2).functions).toHaveLength(2);
  });

  it("leaves out the profiler's own stop, whatever it called", () => {
    // The preload's post (node 7) calls the inspector's native dispatch (node 8): 300 ms in the last sample.
    const stopped: CpuProfile = {
      ...profile,
      nodes: [
        ...profile.nodes.map((node) => (node.id === 1 ? { ...node, children: [2, 3, 4, 5, 6, 7] } : node)),
        { id: 7, callFrame: frame("post", "file:///work/x/scripts/bench/profile-preload.mjs", 19), children: [8] },
        { id: 8, callFrame: frame("dispatch") },
      ],
      samples: [2, 3, 4, 5, 5, 6, 8, 2],
      timeDeltas: [0, 5000, 1000, 2000, 3000, 3000, 1000, 300_000, 9999],
    };
    const summary = summariseProfile(stopped, maps);
    expect(summary.busyMs).toBe(10);
    expect(summary.owners.map((o) => o.name)).toEqual(["pg", "node:stream_base_commons", "V8 garbage collector", "own code"]);
  });
});

describe("the bench's profiler preload", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-profile-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("profiles a running process between two SIGUSR2, and the profile maps through the bundle's source map", async () => {
    // A "bundle" with a source map naming a package as its source: the summary must name that package.
    const bundle = path.join(dir, "main.mjs");
    writeFileSync(bundle, 'function spin(){let x=0;for(let i=0;i<2e5;i++)x+=Math.sqrt(i);return x}\nsetInterval(spin,1);console.log("up");\n');
    writeFileSync(`${bundle}.map`, JSON.stringify({ version: 3, sources: ["../node_modules/.pnpm/busy@1/node_modules/busy/index.js"], names: [], mappings: "AAAA;AACA" }));
    const child = spawn(process.execPath, [bundle], { env: { ...process.env, ...profilerEnv(dir) }, stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
      child.kill("SIGUSR2");
      await new Promise((r) => setTimeout(r, 1000));
      child.kill("SIGUSR2");
      const file = path.join(dir, `${child.pid}-1.cpuprofile`);
      for (let i = 0; i < 100 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
      expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
      const summary = summariseProfile(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, new SourceMaps());
      expect(summary.busyMs).toBeGreaterThan(0);
      expect(summary.owners.map((o) => o.name)).toContain("busy");
    } finally {
      child.kill("SIGKILL");
    }
  });
});
