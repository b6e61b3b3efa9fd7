import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const E2E = path.resolve(import.meta.dirname, "../e2e");

/**
 * End-to-end files run two at a time, each mesh on its worker's broker (tests/e2e/support/lane.ts):
 * a file that took the run's first broker directly would share it with the other worker's mesh,
 * whose services use the same topics and consumer groups, and the two would split each other's events.
 */
describe("end-to-end lanes", () => {
  it("every end-to-end file takes its broker from laneBrokers(), none from the run's first broker directly", () => {
    const direct = readdirSync(E2E)
      .filter((file) => file.endsWith(".test.ts"))
      .filter((file) => /inject\(\s*["']kafkaBrokers["']\s*\)/.test(readFileSync(path.join(E2E, file), "utf8")));
    expect(direct).toEqual([]);
  });
});
