import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { BUNDLE, launch, waitReady } from "./mesh";
import { MeshNames, peerName } from "./mesh-names";

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

describe("the names of a mesh with replicas", () => {
  /** What a mesh process resolves `name` to now: node:dns/promises, as packages/rpc's SpreadTransport calls it. */
  const resolved = (file: string, name: string) =>
    execFileSync(
      process.execPath,
      [`--import=${pathToFileURL(path.join(import.meta.dirname, "mesh-hosts.mjs")).href}`, "--input-type=module", "-e", `import { lookup } from "node:dns/promises"; lookup(${JSON.stringify(name)}, { all: true }).then((r) => console.log(r.map((a) => a.address).join(",")), (e) => console.log(e.code));`],
      { env: { ...process.env, MESH_HOSTS_FILE: file }, encoding: "utf8" },
    ).trim();

  it("resolve to the replicas listed as ready, none while none is (as a headless Service's name), and leave other names alone", () => {
    const names = new MeshNames(path.join(mkdtempSync(path.join(os.tmpdir(), "mesh-names-")), "names.json"));
    expect(resolved(names.file, peerName("pricing"))).toBe("ENOTFOUND");
    names.list("pricing", "127.0.0.1");
    names.list("pricing", "127.0.0.2");
    expect(resolved(names.file, peerName("pricing"))).toBe("127.0.0.1,127.0.0.2");
    names.unlist("pricing", "127.0.0.1");
    expect(resolved(names.file, peerName("pricing"))).toBe("127.0.0.2");
    expect(resolved(names.file, "localhost")).toContain("127.0.0.1");
  });
});
