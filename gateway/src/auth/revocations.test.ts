import { describe, expect, it } from "vitest";
import { Revocations } from "./revocations";

const MERCHANT = "6f1d2c3b-4a59-4e8f-9d0c-1b2a3c4d5e6f";
const token = (clientId: string, issuedAt: number, merchantId = MERCHANT) => ({ clientId, merchantId, issuedAt });

describe("Revocations", () => {
  const t0 = 1_800_000_000_000;

  it("refuses a client's tokens issued at or before its revocation, and not those issued after or another client's", () => {
    const revocations = new Revocations(3_660_000);
    revocations.revoke(MERCHANT, "tws_ci_a", t0, t0);
    expect(revocations.revoked(token("tws_ci_a", t0 / 1000 - 100))).toBe(true);
    expect(revocations.revoked(token("tws_ci_a", t0 / 1000))).toBe(true);
    expect(revocations.revoked(token("tws_ci_a", t0 / 1000 + 1))).toBe(false);
    expect(revocations.revoked(token("tws_ci_b", t0 / 1000 - 100))).toBe(false);
  });

  it("refuses every client of a revoked merchant, and keeps the latest revocation when they arrive out of order", () => {
    const revocations = new Revocations(3_660_000);
    revocations.revoke(MERCHANT, undefined, t0, t0);
    revocations.revoke(MERCHANT, undefined, t0 - 60_000, t0);
    expect(revocations.revoked(token("tws_ci_any", t0 / 1000 - 10))).toBe(true);
    expect(revocations.revoked(token("tws_ci_any", t0 / 1000 - 10, "0b6f9a3c-8d4e-4f3a-9c1b-2a7e5d6f8e90"))).toBe(false);
  });

  it("ignores and forgets revocations older than any live token", () => {
    const revocations = new Revocations(3_660_000);
    revocations.revoke(MERCHANT, "tws_ci_old", t0 - 3_700_000, t0);
    expect(revocations.size).toBe(0);
    revocations.revoke(MERCHANT, "tws_ci_a", t0, t0);
    revocations.revoke(MERCHANT, "tws_ci_b", t0 + 3_660_000, t0 + 3_660_000);
    expect(revocations.size).toBe(1);
  });
});
