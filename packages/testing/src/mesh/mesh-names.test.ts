import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { MeshNames, peerName } from "./mesh-names";

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
