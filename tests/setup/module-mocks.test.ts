import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { MODULE_MOCKS } from "../../vitest.config";

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("the unit files that mock a module", () => {
  it("are the ones run with a module registry of their own: the others share their worker's, where vi.mock would replace nothing", () => {
    // Every tracked test file outside the end-to-end suites whose code calls vi.mock.
    const found = execFileSync("git", ["grep", "-l", "-E", "\\bvi\\.(mock|doMock)\\(", "--", "*.test.ts", ":!tests/e2e", ":!tests/faults"], { cwd: ROOT, encoding: "utf8" })
      .split("\n")
      .filter((line) => line && line !== "tests/setup/module-mocks.test.ts");
    expect(found.sort()).toEqual([...MODULE_MOCKS].sort());
  });
});
