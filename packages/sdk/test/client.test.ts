import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TawsilClient, TawsilOAuthError, TawsilProblemError } from "../src/index";
import { backoffDelay, DEFAULT_RETRY_POLICY } from "../src/retry";
import { type FakeApi, fakeClock, problemAnswer, startFakeApi, tokenAnswer } from "./fake-api";

let api: FakeApi;
beforeEach(async () => {
  api = await startFakeApi();
  api.script("/oauth/token", tokenAnswer("token-1"), tokenAnswer("token-2"), tokenAnswer("token-3"));
});
afterEach(() => api.close());

const clientWith = (clock = fakeClock(), retry = {}) => new TawsilClient({ baseUrl: api.baseUrl, clientId: "client id", clientSecret: "s3cret:x", fetch, clock, retry });
const calls = (path: string) => api.requests.filter((r) => r.path === path);
const shipmentA = { id: "0192f5a0-1c2d-7e3f-8a4b-5c6d7e8f9a0b", reference: "ORD-1", status: "CREATED", trackingUrl: "/t/x", codAmount: null, createdAt: "2026-05-04T09:15:00.000Z", version: 1 };
const createA = { reference: "ORD-1", pickup: { savedLocationCode: "RUH-WH-01" }, destination: { latitude: 24.77, longitude: 46.73 }, recipient: { name: "Sara", mobile: "0551234567" } };
const estimate = { pickup: { latitude: 24.7, longitude: 46.6 }, delivery: { latitude: 24.77, longitude: 46.73 } };
const created = { status: 201, headers: { etag: '"1"', location: `/v2/external/shipments/${shipmentA.id}` }, body: shipmentA };

describe("tokens", () => {
  it("authenticates with HTTP Basic (form-encoded id and secret) and caches the token for later calls", async () => {
    api.script("/v2/external/me", { status: 200, body: { code: "ACME" } });
    const client = clientWith();
    await client.me();
    await client.me();
    const [token] = calls("/oauth/token");
    expect(calls("/oauth/token")).toHaveLength(1);
    expect(token!.headers.authorization).toBe(`Basic ${Buffer.from("client%20id:s3cret%3Ax").toString("base64")}`);
    expect(token!.body).toBe("grant_type=client_credentials");
    expect(calls("/v2/external/me").map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-1"]);
  });

  it("shares one token request between concurrent calls", async () => {
    api.script("/v2/external/me", { status: 200, body: { code: "ACME" } });
    const client = clientWith();
    await Promise.all([client.me(), client.me(), client.me()]);
    expect(calls("/oauth/token")).toHaveLength(1);
  });

  it("replaces the token shortly before it expires", async () => {
    api.script("/v2/external/me", { status: 200, body: { code: "ACME" } });
    const clock = fakeClock();
    const client = clientWith(clock);
    await client.me();
    await clock.sleep(3600_000 - 60_000 - 1);
    await client.me();
    expect(calls("/oauth/token")).toHaveLength(1);
    await clock.sleep(1);
    await client.me();
    expect(calls("/v2/external/me").map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-1", "Bearer token-2"]);
  });

  it("renews the token once after a 401, then gives up with the problem", async () => {
    api.script("/v2/external/me", problemAnswer(401, "AUTHENTICATION_REQUIRED"), { status: 200, body: { code: "ACME" } });
    expect(await clientWith().me()).toEqual({ code: "ACME" });
    expect(calls("/v2/external/me").map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-2"]);

    api.requests.length = 0;
    api.script("/v2/external/me", problemAnswer(401, "AUTHENTICATION_REQUIRED"));
    const error = await clientWith().me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TawsilProblemError);
    expect(error).toMatchObject({ status: 401, code: "AUTHENTICATION_REQUIRED" });
    expect(calls("/v2/external/me")).toHaveLength(2);
  });

  it("types the token endpoint's RFC 6749 errors apart from problems", async () => {
    api.script("/oauth/token", { status: 401, headers: { "www-authenticate": 'Basic realm="tawsil"' }, body: { error: "invalid_client", error_description: "Client authentication failed." } });
    const error = await clientWith().me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TawsilOAuthError);
    expect(error).toMatchObject({ status: 401, error: "invalid_client", errorDescription: "Client authentication failed." });
  });
});

describe("retries", () => {
  it("waits what Retry-After says on 429 and 503, then succeeds", async () => {
    api.script("/v2/external/me", problemAnswer(429, "RATE_LIMITED", { "retry-after": "3" }), problemAnswer(503, "SERVICE_UNAVAILABLE", { "retry-after": "2" }), { status: 200, body: { code: "ACME" } });
    const clock = fakeClock();
    expect(await clientWith(clock).me()).toEqual({ code: "ACME" });
    expect(clock.sleeps).toEqual([3000, 2000]);
  });

  it("never retries a 422, and types its problem", async () => {
    api.script("/v2/external/shipments", problemAnswer(422, "VALIDATION_FAILED", {}, { violations: [{ field: "reference", code: "REQUIRED", message: "is required" }], detail: "broken" }));
    const clock = fakeClock();
    const error = await clientWith(clock).shipments.create(createA).catch((e: unknown) => e);
    expect(calls("/v2/external/shipments")).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
    expect(error).toBeInstanceOf(TawsilProblemError);
    expect(error).toMatchObject({
      status: 422,
      code: "VALIDATION_FAILED",
      title: "VALIDATION_FAILED",
      detail: "broken",
      violations: [{ field: "reference", code: "REQUIRED", message: "is required" }],
      requestId: "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9",
      correlationId: "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b",
      retryAfter: undefined,
    });
  });

  it("does not retry a POST without an idempotency key", async () => {
    api.script("/v2/external/shipment-price-estimates", problemAnswer(503, "SERVICE_UNAVAILABLE", { "retry-after": "1" }));
    api.script("/v2/external/shipments", problemAnswer(503, "SERVICE_UNAVAILABLE", { "retry-after": "1" }));
    const client = clientWith();
    await expect(client.estimates.create(estimate)).rejects.toMatchObject({ status: 503, retryAfter: 1 });
    await expect(client.shipments.create(createA, { idempotencyKey: false })).rejects.toMatchObject({ status: 503 });
    expect(calls("/v2/external/shipment-price-estimates")).toHaveLength(1);
    expect(calls("/v2/external/shipments")).toHaveLength(1);
    expect(calls("/v2/external/shipments")[0]!.headers["idempotency-key"]).toBeUndefined();
  });

  it("reuses one generated idempotency key across the retries of a create, a new one per create, and the caller's when given", async () => {
    api.script("/v2/external/shipments", problemAnswer(503, "SERVICE_UNAVAILABLE"), problemAnswer(409, "IDEMPOTENCY_KEY_IN_USE", { "retry-after": "1" }), created, created);
    const clock = fakeClock();
    const client = clientWith(clock);
    const first = await client.shipments.create(createA);
    expect(first).toMatchObject({ shipment: shipmentA, replayed: false, etag: '"1"', location: `/v2/external/shipments/${shipmentA.id}` });
    const keys = calls("/v2/external/shipments").map((r) => r.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[\x21-\x7e]{16,128}$/);
    expect(clock.sleeps[1]).toBe(1000);

    await client.shipments.create(createA);
    await client.shipments.create(createA, { idempotencyKey: "caller-key-0123456789" });
    const later = calls("/v2/external/shipments").slice(3).map((r) => r.headers["idempotency-key"]);
    expect(later[0]).not.toBe(keys[0]);
    expect(later[1]).toBe("caller-key-0123456789");
  });

  it("retries a cancel with its key, but never a 409 other than IDEMPOTENCY_KEY_IN_USE", async () => {
    const path = `/v2/external/shipments/${shipmentA.id}/cancel`;
    api.script(path, problemAnswer(409, "SHIPMENT_ALREADY_ASSIGNED"));
    await expect(clientWith().shipments.cancel(shipmentA.id, { reason: "CUSTOMER_REQUEST" })).rejects.toMatchObject({ code: "SHIPMENT_ALREADY_ASSIGNED" });
    expect(calls(path)).toHaveLength(1);
    api.script(path, problemAnswer(502, "SERVICE_UNAVAILABLE"), { status: 200, headers: { etag: '"2"' }, body: { ...shipmentA, status: "CANCELLED" } });
    expect(await clientWith().shipments.cancel(shipmentA.id, { reasonCode: "CUSTOMER_REQUEST" })).toMatchObject({ etag: '"2"', shipment: { status: "CANCELLED" } });
    const retried = calls(path).slice(1);
    expect(retried).toHaveLength(2);
    expect(retried[0]!.headers["idempotency-key"]).toBe(retried[1]!.headers["idempotency-key"]);
  });

  it("draws each wait uniformly below the capped exponential (full jitter)", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    for (const retry of [1, 2, 3, 4, 5, 10]) {
      const cap = Math.min(1000, 100 * 2 ** (retry - 1));
      expect(backoffDelay(policy, retry, () => 0)).toBe(0);
      expect(backoffDelay(policy, retry, () => 0.999999)).toBeLessThan(cap);
      expect(backoffDelay(policy, retry, () => 0.5)).toBe(Math.floor(cap / 2));
    }
  });

  it("bounds the attempts and the jittered waits of a failing read", async () => {
    api.script("/v2/external/me", problemAnswer(503, "SERVICE_UNAVAILABLE"));
    const clock = fakeClock(() => 0.999);
    await expect(clientWith(clock, { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 300 }).me()).rejects.toMatchObject({ status: 503 });
    expect(calls("/v2/external/me")).toHaveLength(5);
    expect(clock.sleeps).toEqual([99, 199, 299, 299]);
  });

  it("gives up rather than wait past the total time allowed", async () => {
    api.script("/v2/external/me", problemAnswer(429, "RATE_LIMITED", { "retry-after": "60" }));
    const clock = fakeClock();
    await expect(clientWith(clock, { maxElapsedMs: 30_000 }).me()).rejects.toMatchObject({ status: 429, retryAfter: 60 });
    expect(calls("/v2/external/me")).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });
});

describe("reads", () => {
  it("follows page.nextCursor through every page with the same filters", async () => {
    const b = (id: string) => ({ shipmentId: id });
    api.script(
      "/v2/external/shipments",
      { status: 200, body: { data: [b("1"), b("2")], page: { limit: 2, nextCursor: "c1", hasMore: true }, links: { self: "/" } } },
      { status: 200, body: { data: [b("3")], page: { limit: 2, nextCursor: null, hasMore: false }, links: { self: "/" } } },
    );
    const seen: string[] = [];
    for await (const s of clientWith().shipments.list({ state: "CANCELLED", limit: 2 })) seen.push(s.shipmentId);
    expect(seen).toEqual(["1", "2", "3"]);
    expect(calls("/v2/external/shipments").map((r) => r.query)).toEqual([
      { state: "CANCELLED", limit: "2" },
      { state: "CANCELLED", limit: "2", cursor: "c1" },
    ]);
  });

  it("answers an unchanged conditional read as notModified with its ETag", async () => {
    api.script(`/v2/external/shipments/${shipmentA.id}`, { status: 304, headers: { etag: '"3"' } });
    expect(await clientWith().shipments.get(shipmentA.id, { ifNoneMatch: '"3"' })).toEqual({ notModified: true, etag: '"3"' });
    expect(calls(`/v2/external/shipments/${shipmentA.id}`)[0]!.headers["if-none-match"]).toBe('"3"');
  });

  it("sends If-Match from the webhook endpoint's version", async () => {
    api.script("/v2/external/webhook", { status: 204 });
    await clientWith().webhook.delete({ version: 7 });
    expect(calls("/v2/external/webhook")[0]!.headers["if-match"]).toBe('"7"');
  });
});
