import { randomBytes } from "node:crypto";
import { problemSchemaErrors, type TestDatabase } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createWebhookDatabase, startHarness, TestResolver, type Harness } from "../../services/webhook/test/support";
import { accessToken, startStack, type Stack } from "./support/stack";

/**
 * Webhook management through the gateway (delivery-api.md Webhook management, decisions.md
 * section 11) against the real webhook service in its production setting: https only and no
 * non-public receiver. Names resolve through the test's resolver (this machine has no DNS).
 */
const adminUrl = inject("databaseAdminUrl");
let db: TestDatabase;
let webhook: Harness;
let stack: Stack;
let manager: string;
let reader: string;
const resolver = new TestResolver();
const URL_OK = "https://hooks.merchant.example/tawsil";
const secrets: string[] = [];

beforeAll(async () => {
  resolver.names.set("hooks.merchant.example", [{ address: "93.184.216.34", family: 4 }]);
  resolver.names.set("other.merchant.example", [{ address: "2606:2800:220:1::1", family: 6 }]);
  resolver.names.set("loopback.merchant.example", [{ address: "127.0.0.1", family: 4 }]);
  resolver.names.set("mixed.merchant.example", [{ address: "93.184.216.34", family: 4 }, { address: "10.0.0.7", family: 4 }]);
  db = await createWebhookDatabase(adminUrl, "gateway");
  webhook = await startHarness(db.url, { resolver, engine: false, env: { WEBHOOK_ALLOW_INSECURE_URLS: "false", TAWSIL_ENVIRONMENT: "production", WEBHOOK_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64") } });
  stack = await startStack({ adminUrl, environment: "sandbox", gatewayEnv: { WEBHOOK_SERVICE_URL: webhook.service.url } });
  [manager, reader] = await Promise.all([accessToken(stack.baseUrl, stack.merchant.full), accessToken(stack.baseUrl, stack.merchant.readOnly)]);
});
afterAll(async () => {
  await stack?.close();
  await webhook?.close();
  await db?.drop();
});

function call(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; token?: string } = {}): Promise<Response> {
  return fetch(`${stack.baseUrl}/v2/external/webhook${path}`, {
    method,
    headers: { authorization: `Bearer ${opts.token ?? manager}`, ...(opts.body === undefined ? {} : { "content-type": "application/json" }), ...opts.headers },
    ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
  });
}

async function problem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { code: string; violations?: { field: string; code: string; message: string }[] };
  expect(problemSchemaErrors(body)).toEqual([]);
  expect(body.code).toBe(code);
  return body;
}

const ALL_TYPES = ["shipment.created", "shipment.assigned", "shipment.picked_up", "shipment.out_for_delivery", "shipment.delivered", "shipment.failed", "shipment.cancelled"];

describe("webhook management through the gateway", () => {
  it("answers 404 WEBHOOK_NOT_FOUND before registration, and 403 without webhooks:manage", async () => {
    await problem(await call("GET", ""), 404, "WEBHOOK_NOT_FOUND");
    await problem(await call("PATCH", "", { body: { status: "PAUSED" }, headers: { "if-match": '"1"' } }), 404, "WEBHOOK_NOT_FOUND");
    await problem(await call("DELETE", "", { headers: { "if-match": '"1"' } }), 404, "WEBHOOK_NOT_FOUND");
    await problem(await call("POST", "/rotate-secret", { headers: { "if-match": '"1"' } }), 404, "WEBHOOK_NOT_FOUND");
    await problem(await call("GET", "", { token: reader }), 403, "ACCESS_DENIED");
    await problem(await call("POST", "", { token: reader, body: { url: URL_OK } }), 403, "ACCESS_DENIED");
  });

  it.each([
    ["http", "http://hooks.merchant.example/x", "UNSUPPORTED_VALUE"],
    ["over 2048 characters", `https://hooks.merchant.example/${"a".repeat(2030)}`, "TOO_LONG"],
    ["userinfo", "https://user:pass@hooks.merchant.example/x", "INCONSISTENT_VALUE"],
    ["a fragment", "https://hooks.merchant.example/x#frag", "INCONSISTENT_VALUE"],
    ["not absolute", "/relative/path", "INVALID_FORMAT"],
    ["loopback v4", "https://127.0.0.1/x", "INCONSISTENT_VALUE"],
    ["loopback v6", "https://[::1]/x", "INCONSISTENT_VALUE"],
    ["private 10/8", "https://10.0.0.1/x", "INCONSISTENT_VALUE"],
    ["private 172.16/12", "https://172.16.5.4/x", "INCONSISTENT_VALUE"],
    ["private 192.168/16", "https://192.168.0.10/x", "INCONSISTENT_VALUE"],
    ["link-local", "https://169.254.1.1/x", "INCONSISTENT_VALUE"],
    ["the cloud metadata address", "https://169.254.169.254/latest/meta-data", "INCONSISTENT_VALUE"],
    ["IPv4-mapped IPv6", "https://[::ffff:10.0.0.1]/x", "INCONSISTENT_VALUE"],
    ["NAT64", "https://[64:ff9b::7f00:1]/x", "INCONSISTENT_VALUE"],
    ["multicast", "https://224.0.0.251/x", "INCONSISTENT_VALUE"],
    ["unspecified", "https://0.0.0.0/x", "INCONSISTENT_VALUE"],
    ["a decimal IPv4 for loopback", "https://2130706433/x", "INCONSISTENT_VALUE"],
    ["a name resolving to loopback", "https://loopback.merchant.example/x", "INCONSISTENT_VALUE"],
    ["a name with one private address among public ones", "https://mixed.merchant.example/x", "INCONSISTENT_VALUE"],
    ["a name that does not resolve", "https://nowhere.merchant.example/x", "INCONSISTENT_VALUE"],
  ])("refuses a URL with %s: 422 on url", async (_name, url, code) => {
    const body = await problem(await call("POST", "", { body: { url } }), 422, "VALIDATION_FAILED");
    expect(body.violations?.map((v) => `${v.field} ${v.code}`)).toEqual([`url ${code}`]);
  });

  it("ignores a Content-Type on a DELETE without content, which describes nothing: no 415", async () => {
    for (const type of ["application/xml", "application/json, text/plain"]) {
      await problem(await call("DELETE", "", { headers: { "if-match": '"1"', "content-type": type } }), 404, "WEBHOOK_NOT_FOUND");
    }
  });

  it("rejects unknown properties and event types with 422", async () => {
    const body = await problem(await call("POST", "", { body: { url: URL_OK, secret: "x", events: ["shipment.lost"] } }), 422, "VALIDATION_FAILED");
    expect(body.violations?.map((v) => `${v.field} ${v.code}`).sort()).toEqual(["events[0] UNSUPPORTED_VALUE", "secret UNKNOWN_PROPERTY"]);
  });

  it("registers once (201, secret shown once, ETag), reads without secret, and refuses a second registration with 409", async () => {
    const created = await call("POST", "", { body: { url: URL_OK } });
    expect(created.status).toBe(201);
    expect(created.headers.get("etag")).toBe('"1"');
    const body = (await created.json()) as Record<string, unknown>;
    expect(body).toEqual({
      endpointId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: URL_OK,
      status: "ACTIVE",
      subscribedEventTypes: ALL_TYPES,
      version: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      previousSecretValidUntil: null,
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    secrets.push(String(body.signingSecret));
    const read = await call("GET", "");
    expect(read.status).toBe(200);
    expect(read.headers.get("etag")).toBe('"1"');
    const { signingSecret: _secret, ...withoutSecret } = body;
    expect(await read.json()).toEqual(withoutSecret);
    await problem(await call("POST", "", { body: { url: "https://other.merchant.example/h" } }), 409, "WEBHOOK_ALREADY_EXISTS");
    await problem(await call("POST", "", { body: { url: URL_OK, events: ["shipment.delivered"] } }), 409, "WEBHOOK_ALREADY_EXISTS");
  });

  it("answers the same registration again with what it committed (a retry after a lost answer or a 503), secret included", async () => {
    for (const events of [undefined, ALL_TYPES.slice().reverse()]) {
      const again = await call("POST", "", { body: { url: URL_OK, ...(events ? { events } : {}) } });
      expect(again.status).toBe(201);
      expect(again.headers.get("etag")).toBe('"1"');
      expect(again.headers.get("cache-control")).toBe("no-store");
      expect(await again.json()).toMatchObject({ version: 1, url: URL_OK, signingSecret: secrets[0] });
    }
  });

  it("changes with PATCH only at the current version: 428 without If-Match, 412 when stale", async () => {
    await problem(await call("PATCH", "", { body: { status: "PAUSED" } }), 428, "PRECONDITION_REQUIRED");
    await problem(await call("PATCH", "", { body: { status: "PAUSED" }, headers: { "if-match": '"7"' } }), 412, "PRECONDITION_FAILED");
    await problem(await call("PATCH", "", { body: { status: "PAUSED" }, headers: { "if-match": 'W/"1"' } }), 412, "PRECONDITION_FAILED");
    await problem(await call("PATCH", "", { body: {}, headers: { "if-match": '"1"' } }), 422, "VALIDATION_FAILED");
    await problem(await call("PATCH", "", { body: { url: "https://10.1.1.1/x" }, headers: { "if-match": '"1"' } }), 422, "VALIDATION_FAILED");
    const changed = await call("PATCH", "", { body: { status: "PAUSED", events: ["shipment.delivered", "shipment.created"], url: "https://other.merchant.example/h" }, headers: { "if-match": '"1"' } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).toBe('"2"');
    expect(await changed.json()).toMatchObject({ status: "PAUSED", subscribedEventTypes: ["shipment.created", "shipment.delivered"], url: "https://other.merchant.example/h", version: 2 });
  });

  it("rotates the secret with If-Match, keeps the previous one 24 hours, and allows 5 rotations per hour", async () => {
    await problem(await call("POST", "/rotate-secret"), 428, "PRECONDITION_REQUIRED");
    await problem(await call("POST", "/rotate-secret", { headers: { "if-match": '"1"' } }), 412, "PRECONDITION_FAILED");
    let version = 2;
    for (let i = 0; i < 5; i++) {
      const before = Date.now();
      const rotated = await call("POST", "/rotate-secret", { headers: { "if-match": `"${version}"` } });
      expect(rotated.status).toBe(200);
      const body = (await rotated.json()) as { signingSecret: string; previousSecretValidUntil: string; version: number };
      // The same rotation again (its answer lost, a 503 after the commit) answers what it committed,
      // and rotates nothing: it costs none of the 5 per hour either.
      const retried = await call("POST", "/rotate-secret", { headers: { "if-match": `"${version}"` } });
      expect(retried.status).toBe(200);
      expect(retried.headers.get("etag")).toBe(rotated.headers.get("etag"));
      expect(await retried.json()).toEqual(body);
      expect(body.signingSecret).toMatch(/^whsec_/);
      expect(secrets).not.toContain(body.signingSecret);
      secrets.push(body.signingSecret);
      const validUntil = Date.parse(body.previousSecretValidUntil);
      expect(validUntil).toBeGreaterThanOrEqual(before + 24 * 3600_000 - 1000);
      expect(validUntil).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
      version = body.version;
      expect(rotated.headers.get("etag")).toBe(`"${version}"`);
    }
    const limited = await call("POST", "/rotate-secret", { headers: { "if-match": `"${version}"` } });
    await problem(limited, 429, "RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit-policy")).toBe('"webhook-secret-rotation";q=5;w=3600');
    expect((await (await call("GET", "")).json()) as { version: number }).toMatchObject({ version });
  });

  it("takes If-Match: * as any current version (RFC 9110), and never \"0\"", async () => {
    const current = ((await (await call("GET", "")).json()) as { version: number }).version;
    await problem(await call("PATCH", "", { body: { status: "ACTIVE" }, headers: { "if-match": '"0"' } }), 412, "PRECONDITION_FAILED");
    const changed = await call("PATCH", "", { body: { status: "ACTIVE" }, headers: { "if-match": "*" } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).toBe(`"${current + 1}"`);
    expect(await changed.json()).toMatchObject({ status: "ACTIVE", version: current + 1 });
  });

  it("deletes with If-Match (204), after which the webhook is gone", async () => {
    const current = ((await (await call("GET", "")).json()) as { version: number }).version;
    await problem(await call("DELETE", ""), 428, "PRECONDITION_REQUIRED");
    await problem(await call("DELETE", "", { headers: { "if-match": `"${current - 1}"` } }), 412, "PRECONDITION_FAILED");
    const deleted = await call("DELETE", "", { headers: { "if-match": `"${current}"` } });
    expect(deleted.status).toBe(204);
    await problem(await call("GET", ""), 404, "WEBHOOK_NOT_FOUND");
    await problem(await call("DELETE", "", { headers: { "if-match": "*" } }), 404, "WEBHOOK_NOT_FOUND");
  });

  it("deletes with If-Match: *", async () => {
    const created = await call("POST", "", { body: { url: URL_OK } });
    expect(created.status).toBe(201);
    secrets.push(((await created.json()) as { signingSecret: string }).signingSecret);
    expect((await call("DELETE", "", { headers: { "if-match": "*" } })).status).toBe(204);
    await problem(await call("GET", ""), 404, "WEBHOOK_NOT_FOUND");
  });

  it("answers 503 (retry later) when the receiver's name cannot be resolved right now; a name that does not exist stays a 422", async () => {
    resolver.failures.set("flaky.merchant.example", "EAI_AGAIN");
    const res = await call("POST", "", { body: { url: "https://flaky.merchant.example/x" } });
    await problem(res, 503, "SERVICE_UNAVAILABLE");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const body = await problem(await call("POST", "", { body: { url: "https://nowhere.merchant.example/x" } }), 422, "VALIDATION_FAILED");
    expect(body.violations?.map((v) => `${v.field} ${v.code}`)).toEqual(["url INCONSISTENT_VALUE"]);
    await problem(await call("GET", ""), 404, "WEBHOOK_NOT_FOUND");
  });

  it("documents what a second rotation within 24 hours does to the first secret (decisions.md section 11: one previous secret)", async () => {
    const document = (await (await fetch(`${stack.baseUrl}/v2/openapi.json`)).json()) as { paths: Record<string, { post: { description: string } }> };
    const rotation = document.paths["/v2/external/webhook/rotate-secret"]!.post.description.replace(/\s+/g, " ");
    expect(rotation).toContain("A second rotation within 24 hours makes the secret of the first rotation the previous one, valid 24 hours from the second rotation, and the secret before it stops signing at once.");
  });

  it("never writes a signing secret to the webhook service's logs", () => {
    expect(secrets.length).toBeGreaterThan(0);
    const logs = webhook.logLines.join("\n");
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
      expect(logs).not.toContain(secret.slice("whsec_".length));
    }
  });
});
