import * as crypto from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { DUMMY_SECRET_HASH, hashSecret, SCRYPT_PARAMS, verifySecret } from "./scrypt-secret-hash";

vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof crypto>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const SECRET = "tws_sk_8Yq0m2b3-kV9hQ1c7rX4uT6pZ0aLwE5sN3dG2jF1oYk";

describe("client secret hashing (scrypt)", () => {
  it("encodes algorithm, parameters, salt and hash, with a fresh salt every time", async () => {
    const first = await hashSecret(SECRET);
    const second = await hashSecret(SECRET);
    expect(first).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    expect(SCRYPT_PARAMS).toEqual({ N: 16384, r: 8, p: 1 });
  });

  it("verifies the right secret and rejects any other", async () => {
    const hash = await hashSecret(SECRET);
    expect(await verifySecret(SECRET, hash)).toBe(true);
    expect(await verifySecret(`${SECRET}x`, hash)).toBe(false);
    expect(await verifySecret(SECRET.slice(0, -1), hash)).toBe(false);
    expect(await verifySecret("", hash)).toBe(false);
  });

  it("compares the derived keys with crypto.timingSafeEqual, never with ===", async () => {
    const spy = vi.mocked(crypto.timingSafeEqual);
    spy.mockClear();
    const hash = await hashSecret(SECRET);
    await verifySecret("wrong", hash);
    expect(spy).toHaveBeenCalledTimes(1);
    const [candidate, stored] = spy.mock.calls[0] ?? [];
    expect((candidate as Buffer).length).toBe(32);
    expect((stored as Buffer).length).toBe(32);
  });

  it("reads the cost parameters from the stored hash, so they can be raised later", async () => {
    const salt = crypto.randomBytes(16);
    const key = crypto.scryptSync(SECRET, salt, 32, { N: 1024, r: 8, p: 1 });
    const cheap = `scrypt$1024$8$1$${salt.toString("base64url")}$${key.toString("base64url")}`;
    expect(await verifySecret(SECRET, cheap)).toBe(true);
  });

  it("refuses a malformed stored hash loudly instead of treating it as a mismatch", async () => {
    await expect(verifySecret(SECRET, "plain-text-secret")).rejects.toThrow("malformed secret hash");
    await expect(verifySecret(SECRET, "scrypt$0$8$1$abc$def")).rejects.toThrow("malformed secret hash");
  });

  it("has a dummy hash that never verifies and costs what a real verification costs", async () => {
    expect(await verifySecret(SECRET, DUMMY_SECRET_HASH)).toBe(false);
    // Same cost by construction (no timing assertion): identical scrypt parameters and lengths.
    const shape = (hash: string) => {
      const [scheme, n, r, p, salt, key] = hash.split("$");
      return { scheme, n, r, p, saltBytes: Buffer.from(salt ?? "", "base64").length, keyBytes: Buffer.from(key ?? "", "base64").length };
    };
    expect(shape(DUMMY_SECRET_HASH)).toEqual(shape(await hashSecret(SECRET)));
  });
});
