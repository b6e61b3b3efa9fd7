/**
 * Where a process's CPU went in one V8 CPU profile (.cpuprofile): self time grouped by what owns
 * the code (a package, one of ours, a Node subsystem, the garbage collector), through the bundle's
 * source map, so "@prisma/client" or "@connectrpc/connect-node" reads as such and not as
 * dist/main.mjs line 1. Pure apart from reading source maps, so the grouping is tested.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SourceMapConsumer, type RawSourceMap } from "source-map-js";

/** The parts of a .cpuprofile this reads (the inspector's Profiler.Profile). */
export interface CpuProfile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: CallFrame; readonly children?: readonly number[] }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
  readonly startTime: number;
  readonly endTime: number;
}

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  /** 0-based, as V8 reports them. */
  readonly lineNumber: number;
  readonly columnNumber: number;
}

export interface Share {
  readonly name: string;
  readonly ms: number;
}

export interface ProfileSummary {
  /** Wall time the profile covers. */
  readonly wallMs: number;
  /** Time in samples that were not idle: the process's own CPU on its main thread. */
  readonly busyMs: number;
  /** Busy time by owner, largest first. */
  readonly owners: readonly Share[];
  /** Busy time by function ("name (owner)"), largest first, the first `topFunctions`. */
  readonly functions: readonly Share[];
}

/** Where a source file of a bundle (as its source map names it) comes from. */
export function ownerOfSource(source: string): string {
  const normalized = source.replaceAll("\\", "/");
  // pnpm's layout ends in node_modules/<name> or node_modules/@scope/<name>; the last one wins.
  const pkg = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(normalized);
  if (pkg) return pkg[1]!;
  // Each service generates its Prisma client into its own tree (src/infra/prisma/generated).
  if (/\/prisma\/generated\//.test(normalized)) return "Prisma generated client";
  const ours = /(?:^|\/)(packages|services)\/([^/]+)\//.exec(normalized);
  if (ours) return ours[1] === "packages" ? `@tawsil/${ours[2]}` : `${ours[2]} (own code)`;
  if (/(?:^|\/)gateway\//.test(normalized)) return "gateway (own code)";
  // A service's bundle maps its own files relative to dist/: ../src/...
  if (/^(?:\.\.\/)*src\//.test(normalized)) return "own code";
  return normalized;
}

/** The owner of a frame V8 reports without a bundle behind it. */
function ownerOfUnmapped(frame: CallFrame): string {
  if (frame.url === "") {
    if (frame.functionName === "(garbage collector)") return "V8 garbage collector";
    if (frame.functionName === "(program)") return "V8 and native code (program)";
    return `native ${frame.functionName || "(anonymous)"}`;
  }
  if (frame.url.startsWith("node:")) {
    // node:internal/http2/core -> node:http2; node:net -> node:net
    const parts = frame.url.slice("node:".length).split("/");
    return `node:${parts[0] === "internal" && parts[1] ? parts[1].replace(/\.js$/, "") : parts[0]}`;
  }
  return ownerOfSource(frame.url.startsWith("file://") ? fileURLToPath(frame.url) : frame.url);
}

/** Source maps of the bundles a profile ran, read once per file; undefined where there is none. */
export class SourceMaps {
  private readonly maps = new Map<string, SourceMapConsumer | undefined>();

  /** The original source of a position in a file:// script, if a source map says. */
  sourceOf(url: string, line0: number, column0: number): string | undefined {
    if (!url.startsWith("file://")) return undefined;
    let map = this.maps.get(url);
    if (!this.maps.has(url)) {
      const file = `${fileURLToPath(url)}.map`;
      map = existsSync(file) ? new SourceMapConsumer(JSON.parse(readFileSync(file, "utf8")) as RawSourceMap) : undefined;
      this.maps.set(url, map);
    }
    if (!map) return undefined;
    // source-map-js: 1-based lines, 0-based columns; V8: both 0-based.
    return map.originalPositionFor({ line: line0 + 1, column: column0 }).source ?? undefined;
  }
}

/** The bench's preload, whose own Profiler.stop (V8 serialising the profile) ends every profile it takes. */
const PROFILER_PRELOAD = "profile-preload.mjs";

/**
 * The nodes of the preload's own calls and everything they called: the stop's last sample stood for
 * up to hundreds of milliseconds (named "native dispatch": 16% of shipment's busy time in an idle
 * window, half of the gateway's in another), time spent on the measurement, not on the work.
 */
function profilerOwnNodes(profile: CpuProfile): Set<number> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const own = new Set<number>();
  for (const node of profile.nodes) {
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      if (byId.get(id)?.callFrame.url.endsWith(PROFILER_PRELOAD)) {
        own.add(node.id);
        break;
      }
    }
  }
  return own;
}

/** Sums a profile's self time by owner and by function, the profiler's own stop left out. */
export function summariseProfile(profile: CpuProfile, maps: Pick<SourceMaps, "sourceOf">, topFunctions = 8): ProfileSummary {
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the next delta.
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + us);
  }
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  let busyUs = 0;
  const profilerOwn = profilerOwnNodes(profile);
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id);
    if (!us || profilerOwn.has(node.id)) continue;
    const frame = node.callFrame;
    if (frame.functionName === "(idle)") continue;
    busyUs += us;
    const source = maps.sourceOf(frame.url, frame.lineNumber, frame.columnNumber);
    const owner = source === undefined ? ownerOfUnmapped(frame) : ownerOfSource(source);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
    const fn = `${frame.functionName || "(anonymous)"} (${owner})`;
    functions.set(fn, (functions.get(fn) ?? 0) + us);
  }
  const ranked = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).map(([name, us]) => ({ name, ms: us / 1000 }));
  return {
    wallMs: (profile.endTime - profile.startTime) / 1000,
    busyMs: busyUs / 1000,
    owners: ranked(owners),
    functions: ranked(functions).slice(0, topFunctions),
  };
}
