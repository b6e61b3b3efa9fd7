import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BUNDLE } from "@tawsil/topology";
import { launch, waitReady } from "./process";

/** A process directory whose bundle prints a few lines, the fatal one on stderr, and exits. */
function failingProcess(): string {
  const cwd = mkdtempSync(path.join(os.tmpdir(), "mesh-launch-"));
  mkdirSync(path.join(cwd, path.dirname(BUNDLE)), { recursive: true });
  writeFileSync(
    path.join(cwd, BUNDLE),
    `console.log(JSON.stringify({ msg: "starting" }));
     process.stderr.write(JSON.stringify({ level: "fatal", msg: "listen EADDRINUSE: address already in use 127.0.0.1:" + process.env.PORT }) + "\\n", () => process.exit(1));`,
  );
  return cwd;
}

describe("a mesh process that exits before it is ready", () => {
  it("fails with the last lines of its log, the fatal line of stderr included, so a run whose files are gone still explains itself", async () => {
    const cwd = failingProcess();
    const p = launch({ name: "dispatch", replicaOf: "dispatch", cwd, port: 1, adminPort: undefined, metricsPort: 2, env: {} }, cwd);
    const failure = await waitReady(p, 10_000, () => {}).then(() => undefined, (e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toContain("dispatch exited with code 1 before it was ready");
    expect(message).toContain('"msg":"starting"');
    expect(message).toContain("listen EADDRINUSE: address already in use 127.0.0.1:1");
  });
});
