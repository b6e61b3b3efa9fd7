import { randomBytes } from "node:crypto";
import { problemSchemaErrors } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startTrackingStack, type TrackingStack } from "./support";

/**
 * The public tracking limits (decisions.md section 14) through the gateway, in front of the real
 * tracking and shipment services: per client address across codes, unknown codes included, and
 * per code; the JSON endpoint and the customer page share both, and every 429 carries Retry-After
 * and the RateLimit headers. Limits are lowered so a test reaches them in a few requests.
 */
const PER_ADDRESS = 6;
const PER_CODE = 4;
let stack: TrackingStack;

beforeAll(async () => {
  stack = await startTrackingStack({
    adminUrl: inject("databaseAdminUrl"),
    brokers: inject("kafkaBrokers"),
    gatewayEnv: { PUBLIC_TRACKING_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: String(PER_ADDRESS), PUBLIC_TRACKING_RATE_LIMIT_PER_MINUTE: String(PER_CODE), TRUSTED_PROXY_CIDRS: "127.0.0.1/32,::1/128" },
  });
}, 180_000);
afterAll(async () => stack?.close());

const randomCode = () => randomBytes(32).toString("base64url");
const json = (code: string, address: string) => fetch(`${stack.gateway.baseUrl}/v2/public/tracking/${code}`, { headers: { "x-forwarded-for": address } });
const page = (code: string, address: string) => fetch(`${stack.gateway.baseUrl}/t/${code}`, { headers: { "x-forwarded-for": address } });

/** Public tracking reads the tracking service has handled so far. */
async function trackingReads(): Promise<number> {
  const text = await (await fetch(`${stack.tracking.metricsUrl}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("rpc_server_duration_seconds_count{") && l.includes('procedure="tawsil.tracking.v1.TrackingService/GetPublicTracking"'));
  return line ? Number(line.split(" ").pop()) : 0;
}

function expectLimited(res: Response, policy: string, quota: number): void {
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(res.headers.get("ratelimit-policy")).toBe(`"${policy}";q=${quota};w=60`);
  expect(res.headers.get("ratelimit")).toBe(`"${policy}";r=0;t=${retryAfter}`);
}

describe("public tracking limits at the gateway", () => {
  it("refuses the client address past its limit across codes, unknown ones included, JSON and page alike, before any RPC", async () => {
    const address = "203.0.113.10";
    const before = await trackingReads();
    for (let i = 0; i < PER_ADDRESS; i++) {
      const res = await (i % 2 ? page : json)(randomCode(), address);
      expect(res.status).toBe(404);
      await res.text();
    }
    expect(await trackingReads()).toBe(before + PER_ADDRESS);

    const refused = await json(randomCode(), address);
    expectLimited(refused, "tracking-address", PER_ADDRESS);
    const problem = (await refused.json()) as { code: string };
    expect(problemSchemaErrors(problem)).toEqual([]);
    expect(problem.code).toBe("RATE_LIMITED");
    const refusedPage = await page(randomCode(), address);
    expectLimited(refusedPage, "tracking-address", PER_ADDRESS);
    expect(refusedPage.headers.get("content-type")).toBe("text/html; charset=utf-8");
    await refusedPage.text();
    // Neither refusal reached the tracking service.
    expect(await trackingReads()).toBe(before + PER_ADDRESS);

    // Another client address has its own allowance.
    const other = await json(randomCode(), "203.0.113.11");
    expect(other.status).toBe(404);
    await other.text();
  });

  it("refuses a code past its limit with the RateLimit headers on the customer page as on the JSON endpoint", async () => {
    const code = randomCode();
    for (let i = 0; i < PER_CODE; i++) {
      const res = await (i % 2 ? page : json)(code, `198.51.100.${i + 1}`);
      expect(res.status).toBe(404);
      await res.text();
    }
    const refusedPage = await page(code, "198.51.100.20");
    expectLimited(refusedPage, "tracking-link", PER_CODE);
    expect(await refusedPage.text()).toContain("<html");
    const refused = await json(code, "198.51.100.21");
    expectLimited(refused, "tracking-link", PER_CODE);
    await refused.text();
  });
});
