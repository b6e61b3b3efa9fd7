import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { allDatabasesOf, checkoutNamespace, databaseNames, devDatabasePrefix, MAX_DATABASE_NAME } from "./namespace";

const parent = mkdtempSync(path.join(os.tmpdir(), "tawsil-namespace-"));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

function checkout(...parts: string[]): string {
  const dir = path.join(parent, ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe("a checkout's database namespace", () => {
  it("differs between two checkouts, even of the same folder name", () => {
    const a = checkout("one", "tawsil");
    const b = checkout("two", "tawsil");
    expect(checkoutNamespace(a, {})).not.toBe(checkoutNamespace(b, {}));
    expect(checkoutNamespace(a, {})).toMatch(/^tawsil_[0-9a-f]{6}$/);
  });

  it("is the same on every start of one checkout", () => {
    const a = checkout("again");
    expect(checkoutNamespace(a, {})).toBe(checkoutNamespace(a, {}));
  });

  it("keeps every database name within PostgreSQL's 63 characters, whatever the folder is called", () => {
    const long = checkout("A Very Long Folder Name With Spaces And ÜNICODE and more and more and more");
    const names = allDatabasesOf(devDatabasePrefix(long, {}));
    for (const name of names) expect(name.length).toBeLessThanOrEqual(MAX_DATABASE_NAME);
    expect(names.every((name) => /^[a-z0-9_]+$/.test(name))).toBe(true);
  });

  it("is DEV_NAMESPACE when set, and refuses one PostgreSQL or the shell would mangle", () => {
    const a = checkout("named");
    expect(devDatabasePrefix(a, { DEV_NAMESPACE: "ci_7" })).toBe("tawsil_ci_7_");
    expect(() => checkoutNamespace(a, { DEV_NAMESPACE: "Robert'); DROP" })).toThrow(/DEV_NAMESPACE/);
    expect(() => checkoutNamespace(a, { DEV_NAMESPACE: "x".repeat(31) })).toThrow(/DEV_NAMESPACE/);
  });

  it("keeps DEV_DB_PREFIX as the whole prefix, as before namespacing, and refuses one too long for the bench's names", () => {
    const a = checkout("prefixed");
    expect(databaseNames(devDatabasePrefix(a, { DEV_DB_PREFIX: "tawsil_" })).merchant).toBe("tawsil_merchant");
    expect(() => devDatabasePrefix(a, { DEV_DB_PREFIX: `${"p".repeat(50)}_` })).toThrow(/63/);
  });

  it("lists for make dev-reset the databases of make dev and make bench, and only names with the prefix", () => {
    const names = allDatabasesOf("tawsil_x_1a2b3c_");
    expect(names).toContain("tawsil_x_1a2b3c_merchant");
    expect(names).toContain("tawsil_x_1a2b3c_bench_webhook");
    expect(names).toContain("tawsil_x_1a2b3c_bench_baseline");
    expect(names.every((name) => name.startsWith("tawsil_x_1a2b3c_"))).toBe(true);
  });
});
