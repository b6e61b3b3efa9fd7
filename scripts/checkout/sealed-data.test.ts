import { describe, expect, it } from "vitest";
import { mismatchedSecrets, secretsFingerprint } from "./sealed-data";

const secrets = { SIGNING_KEY_ENCRYPTION_KEY: "a".repeat(44), WEBHOOK_SECRET_ENCRYPTION_KEY: "b".repeat(44) };

describe("the fingerprint of the local secrets on a database", () => {
  it("matches the secrets it was made from", () => {
    expect(mismatchedSecrets(secretsFingerprint(secrets), secrets)).toEqual([]);
  });

  it("names the secret that differs (a restored database, or a replaced secrets.env)", () => {
    const other = { ...secrets, SIGNING_KEY_ENCRYPTION_KEY: "c".repeat(44) };
    expect(mismatchedSecrets(secretsFingerprint(other), secrets)).toEqual(["SIGNING_KEY_ENCRYPTION_KEY"]);
  });

  it("reveals no secret", () => {
    expect(secretsFingerprint(secrets)).not.toContain("aaaa");
  });

  it("is no mismatch for a secret added since the database was marked, nor for a database never marked", () => {
    const marked = secretsFingerprint({ SIGNING_KEY_ENCRYPTION_KEY: secrets.SIGNING_KEY_ENCRYPTION_KEY });
    expect(mismatchedSecrets(marked, secrets)).toEqual([]);
    expect(mismatchedSecrets(null, secrets)).toEqual([]);
    expect(mismatchedSecrets("someone's own comment", secrets)).toEqual([]);
  });
});
