import { createCipheriv, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretBox } from "./secret-box";

const OLD = randomBytes(32);
const NEW = randomBytes(32);
const ENDPOINT = "0b9e7c1e-6a4c-4a53-9d0e-4b8f0d7f2a11";

/** A secret as this service sealed it before keys had ids: `1 | iv | tag | ciphertext`. */
function sealedWithoutKeyId(key: Buffer, secret: string, endpointId: string): Uint8Array {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(endpointId, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.of(1), iv, cipher.getAuthTag(), ciphertext]);
}

describe("SecretBox", () => {
  it("names the sealing key in what it seals during a rotation, and opens it with that key wherever it is listed", () => {
    const sealed = new SecretBox(NEW, [OLD]).seal("whsec_abc", ENDPOINT);
    expect(new SecretBox(NEW).open(sealed, ENDPOINT)).toBe("whsec_abc");
    expect(new SecretBox(OLD, [NEW]).open(sealed, ENDPOINT)).toBe("whsec_abc");
    expect(() => new SecretBox(OLD).open(sealed, ENDPOINT)).toThrow(/cannot be opened with WEBHOOK_SECRET_ENCRYPTION_KEY or WEBHOOK_SECRET_DECRYPTION_KEYS/);
    expect(() => new SecretBox(NEW).open(sealed, "another-endpoint")).toThrow(/cannot be opened/);
    expect(new SecretBox(NEW, [OLD]).isCurrent(sealed)).toBe(true);
    expect(new SecretBox(OLD, [NEW]).isCurrent(sealed)).toBe(false);
  });

  it("seals with a lone key as a release before key ids did, so both releases open it during an upgrade", () => {
    const sealed = new SecretBox(OLD).seal("whsec_abc", ENDPOINT);
    expect(sealed[0]).toBe(1);
    expect(new SecretBox(OLD).open(sealed, ENDPOINT)).toBe("whsec_abc");
    expect(new SecretBox(NEW, [OLD]).open(sealed, ENDPOINT)).toBe("whsec_abc");
    expect(new SecretBox(OLD, [NEW]).isCurrent(sealed)).toBe(false);
  });

  it("opens a secret sealed before keys had ids with whichever configured key sealed it", () => {
    const legacy = sealedWithoutKeyId(OLD, "whsec_old", ENDPOINT);
    expect(new SecretBox(OLD).open(legacy, ENDPOINT)).toBe("whsec_old");
    expect(new SecretBox(NEW, [OLD]).open(legacy, ENDPOINT)).toBe("whsec_old");
    expect(new SecretBox(NEW, [OLD]).isCurrent(legacy)).toBe(false);
    expect(() => new SecretBox(NEW).open(legacy, ENDPOINT)).toThrow(/cannot be opened/);
    expect(() => new SecretBox(NEW).open(Buffer.of(9, 1, 2), ENDPOINT)).toThrow(/unknown sealed secret format/);
  });
});
