import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import { LONGEST_FILES, LongestFirst } from "./longest-first";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** A file of a project as the sequencer sees it; `size` stands for vitest's file stats (no timings: a fresh clone). */
function spec(project: { name: string; groupOrder: number }, file: string): TestSpecification {
  return { project: { name: project.name, config: { root: ROOT, isolate: true, sequence: { groupOrder: project.groupOrder } } }, moduleId: path.join(ROOT, file) } as unknown as TestSpecification;
}

/** Vitest's cache of a fresh clone: no timings, and each file's size (the larger runs first). */
const freshClone = (sizes: Record<string, number>) =>
  ({ config: { root: ROOT }, cache: { getFileTestResults: () => undefined, getFileStats: (key: string) => ({ size: sizes[key.slice(key.indexOf(":") + 1)] ?? 0 }) } }) as unknown as Vitest;

describe("the order of a fresh clone's test files", () => {
  it("names only files that exist", () => {
    expect(LONGEST_FILES.filter((file) => !existsSync(path.join(ROOT, file)))).toEqual([]);
  });

  it("starts the longest files first within their project, the others in vitest's order (larger first), each group after the one before", async () => {
    const unit = { name: "unit-and-integration", groupOrder: 0 };
    const e2e = { name: "e2e", groupOrder: 1 };
    const [soak, faults, docs, mesh] = ["tests/e2e/soak.e2e.test.ts", "tests/faults/mesh.faults.test.ts", "tests/e2e/docs.e2e.test.ts", "tests/e2e/mesh.e2e.test.ts"];
    const sizes = { [soak]: 1_000, [faults]: 9_000, [docs]: 3_000, [mesh]: 30_000, "a.test.ts": 5, "b.test.ts": 50 };
    const files = [spec(e2e, docs), spec(e2e, soak), spec(unit, "a.test.ts"), spec(e2e, mesh), spec(e2e, faults), spec(unit, "b.test.ts")];
    const sorted = await new LongestFirst(freshClone(sizes)).sort(files);
    expect(sorted.map((s) => path.relative(ROOT, s.moduleId))).toEqual(["b.test.ts", "a.test.ts", soak, faults, mesh, docs]);
  });
});
