/**
 * The client address behind the per-address limits (the token endpoint's, public tracking's) is
 * taken from X-Forwarded-For only when the connection comes from a trusted proxy's range
 * (TRUSTED_PROXY_CIDRS), reading the chain from the right: a caller that reaches the gateway
 * directly is counted by its own socket address whatever it sends, and a client behind the proxy
 * by the address the proxy appended, whatever it put on the left.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig, SERVICES } from "../src/config";
import { startBareGateway, type BareGateway } from "./support/bare-gateway";

const PER_ADDRESS = 3;
const PROXY = "10.1.2.3";
let gateway: BareGateway;

beforeAll(async () => {
  gateway = await startBareGateway({
    TRUSTED_PROXY_CIDRS: "10.0.0.0/8, fd00::/8",
    TOKEN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: String(PER_ADDRESS),
    PUBLIC_TRACKING_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: String(PER_ADDRESS),
  });
});
afterAll(async () => {
  await gateway?.close();
});

/** Token requests (not a form: counted by the per-address limit alone, then 400) from `remoteAddress`, each with its own X-Forwarded-For. */
async function tokenStatuses(remoteAddress: string, forwardedFor: (i: number) => string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < PER_ADDRESS + 2; i++) {
    const res = await gateway.inject({ method: "POST", url: "/oauth/token", remoteAddress, headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor(i) }, payload: "{}" });
    statuses.push(res.statusCode);
  }
  return statuses;
}
const limitedAfterThree = [400, 400, 400, 429, 429];

describe("the client address of the per-address limits", () => {
  it("is a direct caller's own socket address, whatever X-Forwarded-For it sends", async () => {
    expect(await tokenStatuses("203.0.113.5", (i) => `198.51.100.${i + 1}`)).toEqual(limitedAfterThree);
    // A pod of the cluster outside the proxies' ranges is a direct caller too.
    expect(await tokenStatuses("172.16.0.9", (i) => `${PROXY}, 198.51.100.${i + 1}`)).toEqual(limitedAfterThree);
  });

  it("is the address a trusted proxy appended, each client counted on its own", async () => {
    expect(await tokenStatuses(PROXY, () => "198.51.100.20")).toEqual(limitedAfterThree);
    expect(await tokenStatuses(PROXY, () => "198.51.100.21")).toEqual(limitedAfterThree);
  });

  it("skips trusted proxies from the right, and never believes what the client put on the left", async () => {
    // The client sent its own X-Forwarded-For; the edge proxy and an inner one (10.9.9.9) appended theirs.
    expect(await tokenStatuses(PROXY, (i) => `6.6.6.${i}, 198.51.100.30, 10.9.9.9`)).toEqual(limitedAfterThree);
    // A dual-stack socket reports an IPv4 proxy as ::ffff:10.1.2.3; IPv6 ranges work alike.
    expect(await tokenStatuses(`::ffff:${PROXY}`, (i) => `6.6.7.${i}, 198.51.100.31`)).toEqual(limitedAfterThree);
    expect(await tokenStatuses("fd00::7", (i) => `6.6.8.${i}, 2001:db8::31`)).toEqual(limitedAfterThree);
  });

  it("holds for public tracking: a direct caller's spoofed addresses share its one budget", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < PER_ADDRESS + 2; i++) {
      const res = await gateway.inject({ method: "GET", url: `/v2/public/tracking/${"T".repeat(43)}`, remoteAddress: "203.0.113.6", headers: { "x-forwarded-for": `198.51.100.${i + 1}` } });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, PER_ADDRESS)).not.toContain(429);
    expect(statuses.slice(PER_ADDRESS)).toEqual([429, 429]);
  });
});

describe("TRUSTED_PROXY_CIDRS and TRUSTED_PROXY_HOPS", () => {
  const required = {
    PORT: "0",
    PUBLIC_BASE_URL: "https://api.tawsil.test",
    KAFKA_BROKERS: "127.0.0.1:9092",
    ...Object.fromEntries(SERVICES.map((name) => [`${name.toUpperCase()}_SERVICE_URL`, "http://127.0.0.1:9"])),
  };

  it("trusts no proxy unless told", () => {
    expect(readConfig(required).TRUSTED_PROXY_CIDRS).toEqual([]);
  });

  it("refuses a range that is not a CIDR, naming it", () => {
    for (const wrong of ["10.0.0.0", "10.0.0.0/33", "ingress-nginx/8", "fd00::/129"]) {
      expect(() => readConfig({ ...required, TRUSTED_PROXY_CIDRS: `10.0.0.0/8,${wrong}` })).toThrow(/TRUSTED_PROXY_CIDRS: expected comma-separated CIDRs/);
    }
  });

  it("refuses the old hop count with what replaces it, rather than trusting differently than configured", () => {
    expect(() => readConfig({ ...required, TRUSTED_PROXY_HOPS: "1" })).toThrow(/TRUSTED_PROXY_HOPS: replaced by TRUSTED_PROXY_CIDRS/);
  });
});
