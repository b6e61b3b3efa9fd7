import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const eslint = new ESLint({ cwd: ROOT });

/** What eslint reports against reaching into scripts/ for `code` as if it were the file at `file` (relative to the root). */
async function boundaryViolations(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? []).filter((m) => m.message.includes("only scripts/ imports scripts/")).map((m) => m.ruleId ?? "");
}

const IMPORTING = `import { startMesh } from "../../scripts/mesh";\nexport const used = startMesh;\n`;

describe("the scripts/ boundary", () => {
  it("refuses a test file, a test's support file and a bench outside scripts/ that import a script", async () => {
    expect(await boundaryViolations("tests/e2e/violating.e2e.test.ts", IMPORTING)).toEqual(["no-restricted-imports"]);
    expect(await boundaryViolations("tests/e2e/support/violating.ts", IMPORTING)).toEqual(["no-restricted-imports"]);
    expect(await boundaryViolations("services/shipment/test/violating.int.test.ts", `import { ensureTopics } from "../../../scripts/infra/kafka";\nexport const used = ensureTopics;\n`)).toEqual(["no-restricted-imports"]);
    expect(await boundaryViolations("services/shipment/bench/violating.ts", `import type { Mesh } from "../../../scripts/mesh";\nexport type M = Mesh;\n`)).toEqual(["no-restricted-imports"]);
  });

  it("refuses a dynamic import of a script too", async () => {
    expect(await boundaryViolations("tests/deploy/violating.test.ts", `export const load = () => import("../../scripts/identity-keys");\n`)).toEqual(["no-restricted-syntax"]);
  });

  it("holds in the layered folders of a service, beside their own layer rules", async () => {
    const violations = await boundaryViolations("services/shipment/src/infra/violating.ts", `import { BUNDLE } from "../../../../scripts/mesh";\nexport const used = BUNDLE;\n`);
    expect(violations).toEqual(["no-restricted-imports"]);
  });

  it("lets scripts import scripts, and tests import the topology and the test infrastructure", async () => {
    expect(await boundaryViolations("scripts/bench/fine.ts", `import { startMesh } from "../mesh";\nexport const used = startMesh;\n`)).toEqual([]);
    const fine = `import { TOPICS } from "../../packages/topology/src";\nimport { startMesh } from "@tawsil/testing/mesh";\nexport const used = [TOPICS, startMesh];\n`;
    expect(await boundaryViolations("tests/e2e/fine.e2e.test.ts", fine)).toEqual([]);
  });
});
