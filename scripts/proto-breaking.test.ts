import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { checkBreaking } from "./proto-breaking";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BUF = path.join(ROOT, "node_modules", ".bin", "buf");
const PROTO = "proto/tawsil/dispatch/v1/driver_admin_service.proto";
const FIELD = "  int32 waiting_recent = 7;\n";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A repository holding this checkout's protos, committed on main as CI's fresh clone sees it. */
function repository(): (message: string) => void {
  dir = mkdtempSync(path.join(os.tmpdir(), "tawsil-breaking-"));
  cpSync(path.join(ROOT, "proto"), path.join(dir, "proto"), { recursive: true });
  cpSync(path.join(ROOT, "buf.yaml"), path.join(dir, "buf.yaml"));
  const git = (...args: string[]) => expect(spawnSync("git", args, { cwd: dir, encoding: "utf8" }).status).toBe(0);
  git("init", "-q", "-b", "main");
  const commit = (message: string) => {
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", message);
  };
  commit("the protos as they are");
  return commit;
}

const edit = (change: (text: string) => string) => writeFileSync(path.join(dir, PROTO), change(readFileSync(path.join(dir, PROTO), "utf8")));

describe("make buf-breaking", () => {
  it("fails on main when the last commit removed a field (it used to compare main with itself)", { timeout: 60_000 }, () => {
    const commit = repository();
    expect(readFileSync(path.join(dir, PROTO), "utf8")).toContain(FIELD);
    edit((text) => text.replace(FIELD, ""));
    commit("a field removed");
    const { code, output } = checkBreaking(dir, BUF);
    expect(code).not.toBe(0);
    expect(output).toMatch(/waiting_recent/);
    expect(output).toMatch(/against the previous commit/);
  });

  it("passes an added field, and compares with the last release once one is tagged", { timeout: 60_000 }, () => {
    const commit = repository();
    spawnSync("git", ["tag", "v1"], { cwd: dir });
    edit((text) => text.replace(FIELD, `${FIELD}  // noted is a field added after the release.\n  int32 noted = 8;\n`));
    commit("a field added");
    expect(checkBreaking(dir, BUF)).toMatchObject({ code: 0, output: expect.stringMatching(/against the last release, v1/) });
    // Removed two commits after the release: the previous commit alone would not see it.
    edit((text) => text.replace(FIELD, ""));
    commit("a field removed");
    edit((text) => `${text}\n`);
    commit("an unrelated change");
    expect(checkBreaking(dir, BUF).code).not.toBe(0);
  });
});
