import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { KeyEncryption } from "./key-encryption";

describe("signing key sealing (AES-256-GCM)", () => {
  const key = randomBytes(32);
  const plaintext = Buffer.from("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n");

  it("opens what it sealed, and never stores the plaintext or the same bytes twice", () => {
    const encryption = new KeyEncryption(key);
    const sealed = encryption.seal(plaintext, "kid-1");
    expect(sealed.includes(plaintext.subarray(0, 16))).toBe(false);
    expect(encryption.seal(plaintext, "kid-1").equals(sealed)).toBe(false);
    expect(encryption.open(sealed, "kid-1").equals(plaintext)).toBe(true);
  });

  it("refuses another key, another kid, and any altered byte", () => {
    const sealed = new KeyEncryption(key).seal(plaintext, "kid-1");
    expect(() => new KeyEncryption(randomBytes(32)).open(sealed, "kid-1")).toThrow();
    expect(() => new KeyEncryption(key).open(sealed, "kid-2")).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] = (tampered[tampered.length - 1] ?? 0) ^ 1;
    expect(() => new KeyEncryption(key).open(tampered, "kid-1")).toThrow();
  });

  it("needs a 32-byte key", () => {
    expect(() => new KeyEncryption(randomBytes(16))).toThrow("32 bytes");
  });
});
