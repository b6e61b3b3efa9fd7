import type { Client } from "@connectrpc/connect";
import type { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SigningKeys } from "./signing-keys";

const KEY = { kid: "k1", kty: "EC", crv: "P-256", x: "x", y: "y", alg: "ES256", use: "sig" };

/** A merchant client whose ListSigningKeys answers from a queue the test controls. */
function issuer() {
  const answers: (() => Promise<{ keys: (typeof KEY)[] }>)[] = [];
  const calls = { count: 0 };
  const client = {
    listSigningKeys: () => {
      calls.count++;
      return answers.shift()?.() ?? new Promise(() => {});
    },
  } as unknown as Client<typeof MerchantService>;
  return { client, answers, calls };
}

afterEach(() => vi.useRealTimers());

describe("SigningKeys", () => {
  it("waits for the first read, then refreshes an aged set in the background without delaying verification", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { client, answers, calls } = issuer();
    answers.push(async () => ({ keys: [KEY] }));
    const keys = new SigningKeys(client);
    expect((await keys.current()).keys).toEqual([KEY]);

    vi.setSystemTime(Date.now() + 61_000); // past the maximum age; the next read never answers
    expect((await keys.current()).keys).toEqual([KEY]);
    expect(calls.count).toBe(2);
    // A refresh in flight (or failing) is not started again on every request.
    await keys.current();
    expect(calls.count).toBe(2);
  });

  it("asks a failing issuer at most once per cooldown while serving the keys it holds", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const { client, answers, calls } = issuer();
    answers.push(async () => ({ keys: [KEY] }));
    const keys = new SigningKeys(client);
    await keys.current();
    vi.setSystemTime(Date.now() + 61_000);
    const down = async () => {
      throw new Error("merchant down");
    };
    answers.push(down, down);
    await keys.current();
    await new Promise((r) => setImmediate(r));
    await keys.current();
    expect(calls.count).toBe(2);
    vi.setSystemTime(Date.now() + 1_500);
    expect((await keys.current()).keys).toEqual([KEY]);
    expect(calls.count).toBe(3);
    await new Promise((r) => setImmediate(r));
  });
});
