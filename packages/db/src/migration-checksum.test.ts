import { describe, expect, it } from "vitest";
import { checksumMatches, migrationChecksum } from "./migration-checksum";

describe("migrationChecksum", () => {
  it("is the zero-padded SHA-256 hex of the script, as Prisma's engine renders it", () => {
    // The vector from prisma-engines' own test (checksum.rs).
    expect(migrationChecksum("hello")).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  });
});

describe("checksumMatches", () => {
  const script = "CREATE TABLE a (id int);\nCREATE TABLE b (id int);\n";

  it("matches regardless of LF or CRLF line endings", () => {
    expect(checksumMatches(script.replaceAll("\n", "\r\n"), migrationChecksum(script))).toBe(true);
    expect(checksumMatches(script, migrationChecksum(script.replaceAll("\n", "\r\n")))).toBe(true);
  });

  it("matches checksums stored without zero padding by old Prisma versions", () => {
    // "hello" has bytes below 0x10 (0x0e, 0x04 ...), so the unpadded form is shorter than 64.
    const unpadded = "2cf24dba5fb0a3e26e83b2ac5b9e29e1b161e5c1fa7425e7343362938b9824";
    expect(checksumMatches("hello", unpadded)).toBe(true);
  });

  it("rejects any change to the text, even a trailing newline", () => {
    expect(checksumMatches("abc\n", migrationChecksum("abc"))).toBe(false);
    expect(checksumMatches(script.replace("b (", "c ("), migrationChecksum(script))).toBe(false);
  });
});
