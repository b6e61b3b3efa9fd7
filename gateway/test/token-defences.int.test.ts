/**
 * The token endpoint's defences for the merchant service (issue 14): a client id of the wrong
 * shape, and well-formed ids beyond the limits, are answered at the gateway; the merchant service
 * (a database query and a scrypt verification per request) never sees them. What reaches it is
 * counted on its own /metrics.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { requestToken, startStack, type Stack } from "./support/stack";

const adminUrl = inject("databaseAdminUrl");
const GLOBAL_BURST = 5;
const PER_ADDRESS = 30;
let stack: Stack;

beforeAll(async () => {
  stack = await startStack({
    adminUrl,
    environment: "sandbox",
    // A global bucket that refills slower than the test runs: exactly the burst gets through.
    gatewayEnv: { TOKEN_GLOBAL_BURST: String(GLOBAL_BURST), TOKEN_GLOBAL_RATE_PER_SECOND: "0.01", TOKEN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: String(PER_ADDRESS), TRUSTED_PROXY_CIDRS: "127.0.0.1/32,::1/128" },
  });
});
afterAll(async () => {
  await stack?.close();
});

/** Token requests the merchant service has handled so far. */
async function merchantTokenCalls(): Promise<number> {
  const text = await (await fetch(stack.merchantMetricsUrl)).text();
  const line = text.split("\n").find((l) => l.startsWith("rpc_server_duration_seconds_count{") && l.includes('procedure="tawsil.merchant.v1.MerchantService/IssueAccessToken"'));
  return line ? Number(line.split(" ").pop()) : 0;
}

const randomId = () => `tws_ci_${randomBytes(16).toString("base64url")}`;
/** Each test from an address of its own (the test's loopback connection is a trusted proxy here). */
const from = (address: string) => ({ "x-forwarded-for": address });

describe("POST /oauth/token defences", () => {
  it("answers malformed client ids invalid_client, as for an unknown client, without asking the merchant service", async () => {
    const before = await merchantTokenCalls();
    for (const clientId of ["tws_ci_short", "someone@example.com", `tws_ci_${"A".repeat(23)}`, "tws_sk_AAAAAAAAAAAAAAAAAAAAAA", "x".repeat(200)]) {
      const res = await requestToken(stack.baseUrl, { grant_type: "client_credentials" }, { clientId, clientSecret: "tws_sk_whatever" }, from("198.51.100.1"));
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Basic realm="tawsil"');
      expect(await res.json()).toEqual({ error: "invalid_client", error_description: "Client authentication failed." });
    }
    expect(await merchantTokenCalls()).toBe(before);
  });

  it("counts a malformed id's failures toward the lockout, as an unknown client's, still without asking the merchant service", async () => {
    const before = await merchantTokenCalls();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await requestToken(stack.baseUrl, { grant_type: "client_credentials" }, { clientId: "lockout-me", clientSecret: "wrong" }, from("198.51.100.2"));
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect(await merchantTokenCalls()).toBe(before);
  });

  it("passes well-formed unknown ids to the merchant service only up to the global limit, then answers 429 itself", async () => {
    const before = await merchantTokenCalls();
    const statuses: number[] = [];
    // Spread over addresses so the per-address limit is not what stops them.
    for (let i = 0; i < GLOBAL_BURST + 10; i++) {
      const res = await requestToken(stack.baseUrl, { grant_type: "client_credentials" }, { clientId: randomId(), clientSecret: "tws_sk_guess" }, from(`203.0.113.${i + 1}`));
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers.get("content-type")).toBe("application/problem+json");
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        expect(res.headers.get("ratelimit-policy")).toBe(`"token-global";q=${GLOBAL_BURST};w=500`);
        expect(((await res.json()) as { code: string }).code).toBe("RATE_LIMITED");
      } else {
        expect(((await res.json()) as { error: string }).error).toBe("invalid_client");
      }
    }
    expect(statuses).toEqual([...Array<number>(GLOBAL_BURST).fill(401), ...Array<number>(10).fill(429)]);
    expect(await merchantTokenCalls()).toBe(before + GLOBAL_BURST);
  });

  it("limits the token requests of one address, whatever the client ids, before anything else is looked at", async () => {
    const before = await merchantTokenCalls();
    const statuses: number[] = [];
    for (let i = 0; i < PER_ADDRESS + 3; i++) {
      statuses.push((await requestToken(stack.baseUrl, { grant_type: "client_credentials" }, { clientId: `bad-${i}`, clientSecret: "x" }, from("192.0.2.77"))).status);
    }
    expect(statuses).toEqual([...Array<number>(PER_ADDRESS).fill(401), 429, 429, 429]);
    const limited = await requestToken(stack.baseUrl, { grant_type: "client_credentials" }, stack.merchant.full, from("192.0.2.77"));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("ratelimit-policy")).toBe(`"token-address";q=${PER_ADDRESS};w=60`);
    // Another address is not held back by it.
    expect((await requestToken(stack.baseUrl, { grant_type: "client_credentials" }, { clientId: "bad", clientSecret: "x" }, from("192.0.2.78"))).status).toBe(401);
    expect(await merchantTokenCalls()).toBe(before);
  });
});
