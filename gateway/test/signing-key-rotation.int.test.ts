/**
 * The token signing key rotated under load (issue 32): two gateway replicas in front of the real
 * merchant service, tokens issued and used on both without pause, the key rotated twice in the
 * middle. A token issued before a rotation keeps verifying on every replica until it expires; one
 * signed by the new key verifies at once on every replica, which has not read the new JWKS yet and
 * reads it when it meets the unknown kid. Not one request may be refused with 401.
 */
import { decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { accessToken, startStack, type Stack } from "./support/stack";

let stack: Stack;
let replicas: string[];

beforeAll(async () => {
  stack = await startStack({
    adminUrl: inject("databaseAdminUrl"),
    environment: "sandbox",
    // Limits far above what the load sends: this test is about keys, not limits.
    gatewayEnv: {
      RATE_LIMIT_BURST: "1000000",
      RATE_LIMIT_PER_SECOND: "100000",
      TOKEN_RATE_LIMIT_PER_MINUTE: "1000000",
      TOKEN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: "1000000",
      TOKEN_GLOBAL_RATE_PER_SECOND: "100000",
      TOKEN_GLOBAL_BURST: "1000000",
    },
  });
  replicas = [stack.baseUrl, (await stack.addReplica()).baseUrl];
});
afterAll(async () => {
  await stack?.close();
});

describe("rotating the token signing key under load", () => {
  it("refuses no valid token on either gateway replica: old tokens keep verifying, new ones verify at once", async () => {
    const statuses: Record<string, number> = {};
    const kids = new Set<string>();
    /** Tokens issued so far, the oldest kept in use to the end. */
    const tokens: string[] = [await accessToken(replicas[0]!, stack.merchant.full)];
    let stopped = false;
    let turn = 0;

    const use = async (token: string) => {
      const res = await fetch(`${replicas[turn++ % 2]}/v2/external/me`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    };
    // Issues a token on one replica, then uses it at once on both, and an old one too.
    const worker = async () => {
      while (!stopped) {
        const token = await accessToken(replicas[turn++ % 2]!, stack.merchant.full);
        kids.add(String(decodeProtectedHeader(token).kid));
        tokens.push(token);
        await Promise.all([use(token), use(token), use(tokens[0]!), use(tokens[Math.floor(Math.random() * tokens.length)]!)]);
      }
    };

    const load = Promise.all(Array.from({ length: 4 }, worker));
    const rotations: string[] = [];
    for (let i = 0; i < 2; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      rotations.push((await stack.admin.rotateSigningKey({})).kid);
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    stopped = true;
    await load;

    const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
    console.info(`signing key rotation under load: ${tokens.length} tokens under ${kids.size} keys, ${requests} requests, statuses ${JSON.stringify(statuses)}`);
    expect(statuses).toEqual({ 200: requests });
    // Both new keys signed tokens during the load, which were used on both replicas at once.
    for (const kid of rotations) expect(kids.has(kid)).toBe(true);
    expect(kids.size).toBe(3);
  }, 120_000);
});
