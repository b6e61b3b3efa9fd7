import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SourceMapConsumer, SourceMapGenerator, type RawSourceMap } from "source-map-js";
import { describe, expect, it } from "vitest";
import { trimLibraryMappings } from "./source-map-trim";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const LIB = "../node_modules/.pnpm/pg@8/node_modules/pg/lib/client.js";
const OURS = "../src/app/create-shipment.ts";

/** A one-line bundle: two library source lines of three tokens each, then three tokens of ours. */
function bundleMap(): RawSourceMap {
  const g = new SourceMapGenerator({ file: "main.mjs" });
  const add = (column: number, source: string, line: number, originalColumn: number, name?: string) =>
    g.addMapping({ generated: { line: 1, column }, source, original: { line, column: originalColumn }, ...(name ? { name } : {}) });
  add(0, LIB, 10, 0, "query");
  add(5, LIB, 10, 4);
  add(9, LIB, 10, 8);
  add(14, LIB, 11, 2);
  add(18, LIB, 11, 6);
  add(30, OURS, 40, 0, "createShipment");
  add(36, OURS, 40, 6);
  add(41, OURS, 41, 2);
  return JSON.parse(g.toString()) as RawSourceMap;
}

const count = (raw: RawSourceMap) => {
  let n = 0;
  new SourceMapConsumer(raw).eachMapping(() => n++);
  return n;
};

describe("trimming a bundle's source map", () => {
  const full = bundleMap();
  const trimmed = trimLibraryMappings(full);
  const at = (raw: RawSourceMap, column: number) => new SourceMapConsumer(raw).originalPositionFor({ line: 1, column });

  it("keeps one mapping per library source line and every one of ours", () => {
    expect(count(full)).toBe(8);
    expect(count(trimmed)).toBe(2 + 3);
  });

  it("still maps a position inside a library to its file and line", () => {
    expect(at(trimmed, 10)).toMatchObject({ source: LIB, line: 10 });
    expect(at(trimmed, 19)).toMatchObject({ source: LIB, line: 11 });
    expect(at(trimmed, 0)).toMatchObject({ source: LIB, line: 10, name: "query" });
  });

  it("maps our own code exactly as before", () => {
    for (const column of [30, 33, 36, 41, 45]) expect(at(trimmed, column)).toEqual(at(full, column));
    expect(at(trimmed, 30).name).toBe("createShipment");
  });
});

describe("the gateway's built bundle (make build)", () => {
  // What --enable-source-maps does with a frame: Node's own parser on the map beside the bundle.
  const bundle = readFileSync(path.join(ROOT, "gateway/dist/main.mjs"), "utf8");
  const map = new SourceMap(JSON.parse(readFileSync(path.join(ROOT, "gateway/dist/main.mjs.map"), "utf8")) as ConstructorParameters<typeof SourceMap>[0]);
  const entryAt = (needle: string, offset = 0) => {
    expect(bundle.indexOf(needle), `${needle} in the bundle`).toBeGreaterThanOrEqual(0);
    const index = bundle.indexOf(needle) + offset;
    const before = bundle.slice(0, index);
    const line = before.split("\n").length - 1;
    return map.findEntry(line, index - (before.lastIndexOf("\n") + 1));
  };

  // Sources are relative to the map (dist/), as Node resolves them.
  const sourceLine = (entry: { originalSource?: string; originalLine?: number }) =>
    readFileSync(path.resolve(ROOT, "gateway/dist", entry.originalSource ?? "missing"), "utf8").split("\n")[entry.originalLine ?? -1];

  it("maps our code to its TypeScript line", () => {
    const entry = entryAt("function buildGateway(");
    expect(entry).toMatchObject({ originalSource: "../src/app.ts" });
    expect(sourceLine(entry)).toContain("function buildGateway(");
  });

  it("maps a library's code to its file and line", () => {
    const entry = entryAt('createError("FST_ERR_CTP_EMPTY_JSON_BODY"', "createError(".length);
    expect(entry).toMatchObject({ originalSource: expect.stringMatching(/node_modules\/fastify\/lib\/errors\.js$/) });
    expect(sourceLine(entry)).toContain("FST_ERR_CTP_EMPTY_JSON_BODY");
  });
});
