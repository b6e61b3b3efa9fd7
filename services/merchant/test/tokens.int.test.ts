import { calculateJwkThumbprint, createLocalJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MerchantStatus } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import { Code, createMerchantDatabase, failure, startTestService, type TestService } from "./support";

const ISSUER = "https://sandbox.api.tawsil.sa";
const AUDIENCE = "https://api.tawsil.sa/v2";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let db: { url: string; drop(): Promise<void> };
let service: TestService;
let merchantId: string;
let client: { id: string; secret: string };

async function jwks(s: TestService = service) {
  const { keys } = await s.merchant.listSigningKeys({});
  return createLocalJWKSet({ keys: keys.map(({ kid, kty, crv, x, y, alg, use }) => ({ kid, kty, crv, x, y, alg, use })) });
}

async function newClient(merchantCode: string, scopes: string[]) {
  const res = await service.admin.createClient({ merchantCode, name: "test", scopes });
  return { id: res.client?.clientId ?? "", secret: res.clientSecret };
}

beforeAll(async () => {
  db = await createMerchantDatabase(inject("databaseAdminUrl"), "tokens");
  service = await startTestService(db.url);
  const created = await service.admin.createMerchant({ code: "TOKENS", displayName: "Tokens Store", legalName: "Tokens Trading" });
  merchantId = created.merchant?.merchantId ?? "";
  await service.admin.setMerchantStatus({ merchantCode: "TOKENS", status: MerchantStatus.ACTIVE });
  client = await newClient("TOKENS", ["shipments:read", "shipments:write"]);
});

afterAll(async () => {
  await service?.close();
  await db?.drop();
});

describe("IssueAccessToken", () => {
  it("issues an ES256 at+jwt with exactly the agreed claims, verifiable with the published keys", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await service.merchant.issueAccessToken({ clientId: client.id, clientSecret: client.secret, scopes: [] });
    expect(res.expiresInSeconds).toBe(3600);
    expect(res.scopes).toEqual(["shipments:read", "shipments:write"]);

    const { payload, protectedHeader } = await jwtVerify(res.accessToken, await jwks(), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ["ES256"],
      typ: "at+jwt",
    });
    const { keys } = await service.merchant.listSigningKeys({});
    expect(protectedHeader).toEqual({ alg: "ES256", kid: keys[0]?.kid, typ: "at+jwt" });
    expect(Object.keys(payload).sort()).toEqual(["aud", "client_id", "exp", "iat", "iss", "jti", "merchant_id", "nbf", "scope", "sub"]);
    expect(payload).toMatchObject({ iss: ISSUER, aud: AUDIENCE, sub: client.id, client_id: client.id, merchant_id: merchantId, scope: "shipments:read shipments:write" });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(payload.nbf).toBe(payload.iat);
    expect(payload.exp).toBe((payload.iat ?? 0) + 3600);
    expect(payload.jti).toMatch(UUID);

    const again = await service.merchant.issueAccessToken({ clientId: client.id, clientSecret: client.secret, scopes: [] });
    const second = await jwtVerify(again.accessToken, await jwks(), { issuer: ISSUER, audience: AUDIENCE });
    expect(second.payload.jti).not.toBe(payload.jti);
  });

  it("publishes the keys as EC P-256 ES256 signing keys whose kid is the RFC 7638 thumbprint", async () => {
    const { keys } = await service.merchant.listSigningKeys({});
    expect(keys).toHaveLength(1);
    const [key] = keys;
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(key?.kid).toBe(await calculateJwkThumbprint({ kty: "EC", crv: "P-256", x: key?.x ?? "", y: key?.y ?? "" }, "sha256"));
  });

  it("narrows to the requested scopes", async () => {
    const res = await service.merchant.issueAccessToken({ clientId: client.id, clientSecret: client.secret, scopes: ["shipments:read"] });
    expect(res.scopes).toEqual(["shipments:read"]);
    const { payload } = await jwtVerify(res.accessToken, await jwks(), { issuer: ISSUER, audience: AUDIENCE });
    expect(payload.scope).toBe("shipments:read");
  });

  it("refuses a scope outside the client's grant with InvalidArgument INVALID_SCOPE", async () => {
    for (const scopes of [["webhooks:manage"], ["shipments:read", "webhooks:manage"], ["everything"]]) {
      const error = await failure(service.merchant.issueAccessToken({ clientId: client.id, clientSecret: client.secret, scopes }));
      expect(error).toMatchObject({ code: Code.InvalidArgument, reason: "INVALID_SCOPE" });
    }
  });

  it("answers every kind of failed client authentication identically: Unauthenticated INVALID_CLIENT", async () => {
    const disabled = await newClient("TOKENS", ["shipments:read"]);
    await service.admin.setClientEnabled({ clientId: disabled.id, enabled: false });

    await service.admin.createMerchant({ code: "TOKENS-GONE", displayName: "Gone", legalName: "Gone Ltd" });
    const terminated = await newClient("TOKENS-GONE", ["shipments:read"]);
    await service.admin.setMerchantStatus({ merchantCode: "TOKENS-GONE", status: MerchantStatus.TERMINATED });

    const attempts = {
      // The last character changed for certain (a fixed replacement could equal it).
      "wrong secret": { clientId: client.id, clientSecret: `${client.secret.slice(0, -1)}${client.secret.endsWith("A") ? "B" : "A"}` },
      "unknown client": { clientId: "tws_ci_doesnotexist000000000", clientSecret: client.secret },
      "empty credentials": { clientId: "", clientSecret: "" },
      "disabled client": { clientId: disabled.id, clientSecret: disabled.secret },
      "terminated merchant": { clientId: terminated.id, clientSecret: terminated.secret },
      "another client's secret": { clientId: disabled.id, clientSecret: client.secret },
    };
    const failures = await Promise.all(Object.values(attempts).map((credentials) => failure(service.merchant.issueAccessToken({ ...credentials, scopes: [] }))));
    for (const result of failures) expect(result).toEqual({ code: Code.Unauthenticated, reason: "INVALID_CLIENT", message: "client authentication failed" });

    await service.admin.setClientEnabled({ clientId: disabled.id, enabled: true });
    await expect(service.merchant.issueAccessToken({ clientId: disabled.id, clientSecret: disabled.secret, scopes: [] })).resolves.toBeDefined();
  });

  it("refuses a sandbox client in a production deployment, with the same answer", async () => {
    const production = await startTestService(db.url, { env: { TAWSIL_ENVIRONMENT: "production" } });
    try {
      const error = await failure(production.merchant.issueAccessToken({ clientId: client.id, clientSecret: client.secret, scopes: [] }));
      expect(error).toEqual({ code: Code.Unauthenticated, reason: "INVALID_CLIENT", message: "client authentication failed" });
      // A production client works there and is refused by the sandbox.
      const created = await production.admin.createClient({ merchantCode: "TOKENS", name: "prod", scopes: ["shipments:read"] });
      expect(created.client?.environment).toBe("production");
      const token = await production.merchant.issueAccessToken({ clientId: created.client?.clientId ?? "", clientSecret: created.clientSecret, scopes: [] });
      const { payload } = await jwtVerify(token.accessToken, await jwks(production), { issuer: "https://api.tawsil.sa", audience: AUDIENCE });
      expect(payload.client_id).toBe(created.client?.clientId);
      const sandboxAnswer = await failure(service.merchant.issueAccessToken({ clientId: created.client?.clientId ?? "", clientSecret: created.clientSecret, scopes: [] }));
      expect(sandboxAnswer.reason).toBe("INVALID_CLIENT");
    } finally {
      await production.close();
    }
  });

  it("never shows a secret after creation: not in GetClient, not in any log line", async () => {
    const fresh = await newClient("TOKENS", ["shipments:read", "webhooks:manage"]);
    expect(fresh.secret).toMatch(/^tws_sk_[A-Za-z0-9_-]{43}$/);
    expect(fresh.id).toMatch(/^tws_ci_[A-Za-z0-9_-]{22}$/);
    const got = await service.admin.getClient({ clientId: fresh.id });
    expect(got.client).toMatchObject({ clientId: fresh.id, merchantId, scopes: ["shipments:read", "webhooks:manage"], enabled: true, environment: "sandbox" });
    const serialized = JSON.stringify(got, (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value));
    expect(serialized).not.toContain(fresh.secret);
    expect(serialized).not.toContain("scrypt$");

    await service.merchant.issueAccessToken({ clientId: fresh.id, clientSecret: fresh.secret, scopes: [] });
    await failure(service.merchant.issueAccessToken({ clientId: fresh.id, clientSecret: `${fresh.secret}x`, scopes: [] }));
    expect(service.logLines.length).toBeGreaterThan(0);
    expect(service.logLines.some((line) => line.includes(fresh.id))).toBe(true);
    for (const secret of [fresh.secret, client.secret]) {
      expect(service.logLines.filter((line) => line.includes(secret) || line.includes(secret.slice(7)))).toEqual([]);
    }
  });
});
