import { randomUUID } from "node:crypto";
import { problemSchemaErrors } from "@tawsil/testing";
import { decodeJwt, decodeProtectedHeader, SignJWT, UnsecuredJWT, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { accessToken, requestToken, startStack, type Stack } from "./support/stack";

const adminUrl = inject("databaseAdminUrl");
let sandbox: Stack;
let production: Stack;

beforeAll(async () => {
  [sandbox, production] = await Promise.all([
    startStack({ adminUrl, environment: "sandbox" }),
    startStack({ adminUrl, environment: "production" }),
  ]);
});
afterAll(async () => {
  await sandbox?.close();
  await production?.close();
});

async function problem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = (await res.json()) as Record<string, unknown>;
  expect(problemSchemaErrors(body)).toEqual([]);
  expect(body.code).toBe(code);
  return body;
}

async function oauthError(res: Response, status: number, error: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(((await res.json()) as { error: string }).error).toBe(error);
  if (status === 401) expect(res.headers.get("www-authenticate")).toBe('Basic realm="tawsil"');
}

describe("POST /oauth/token", () => {
  it("issues an ES256 access token to a client authenticated with HTTP Basic", async () => {
    const res = await requestToken(sandbox.baseUrl, { grant_type: "client_credentials" }, sandbox.merchant.full);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ access_token: expect.any(String), token_type: "Bearer", expires_in: 3600, scope: "shipments:read shipments:write webhooks:manage" });
    const header = decodeProtectedHeader(body.access_token as string);
    expect(header).toMatchObject({ alg: "ES256", kid: expect.any(String) });
    const claims = decodeJwt(body.access_token as string);
    expect(claims).toMatchObject({ iss: "https://sandbox.api.tawsil.sa", aud: "https://api.tawsil.sa/v2", sub: sandbox.merchant.full.clientId, merchant_id: sandbox.merchant.id });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("accepts the credentials in the body and narrows the scope", async () => {
    const { clientId, clientSecret } = sandbox.merchant.full;
    const res = await requestToken(sandbox.baseUrl, { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret, scope: "shipments:read" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { scope: string }).scope).toBe("shipments:read");
  });

  it("refuses a wrong secret, an unknown client and a disabled client alike: 401 invalid_client", async () => {
    const { clientId } = sandbox.merchant.full;
    await oauthError(await requestToken(sandbox.baseUrl, { grant_type: "client_credentials" }, { clientId, clientSecret: "tws_sk_wrong" }), 401, "invalid_client");
    await oauthError(await requestToken(sandbox.baseUrl, { grant_type: "client_credentials" }, { clientId: "tws_ci_unknown", clientSecret: "x" }), 401, "invalid_client");
    await oauthError(await requestToken(sandbox.baseUrl, { grant_type: "client_credentials" }, sandbox.merchant.disabled), 401, "invalid_client");
    await oauthError(await requestToken(sandbox.baseUrl, { grant_type: "client_credentials" }), 401, "invalid_client");
  });

  it("refuses other grant types, a missing grant type, scopes outside the grant and two auth methods", async () => {
    const { full, readOnly } = sandbox.merchant;
    await oauthError(await requestToken(sandbox.baseUrl, { grant_type: "password", username: "a", password: "b" }, full), 400, "unsupported_grant_type");
    await oauthError(await requestToken(sandbox.baseUrl, {}, full), 400, "invalid_request");
    await oauthError(await requestToken(sandbox.baseUrl, { grant_type: "client_credentials", scope: "shipments:write" }, readOnly), 400, "invalid_scope");
    await oauthError(await requestToken(sandbox.baseUrl, { grant_type: "client_credentials", scope: "admin:everything" }, full), 400, "invalid_scope");
    await oauthError(await requestToken(sandbox.baseUrl, { grant_type: "client_credentials", client_secret: full.clientSecret }, full), 400, "invalid_request");
    await oauthError(await requestToken(sandbox.baseUrl, { grant_type: "client_credentials" }, undefined, { "content-type": "application/json" }), 400, "invalid_request");
  });

  it("locks a client id for 60 s after 5 failed authentications, even for the right secret", async () => {
    const client = await sandbox.admin.createClient({ merchantCode: sandbox.merchant.code, name: "lockout", scopes: ["shipments:read"] });
    const good = { clientId: client.client!.clientId, clientSecret: client.clientSecret };
    for (let i = 0; i < 5; i++) {
      await oauthError(await requestToken(sandbox.baseUrl, { grant_type: "client_credentials" }, { ...good, clientSecret: `tws_sk_wrong${i}` }), 401, "invalid_client");
    }
    const locked = await requestToken(sandbox.baseUrl, { grant_type: "client_credentials" }, good);
    await problem(locked, 429, "RATE_LIMITED");
    const retryAfter = Number(locked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(locked.headers.get("ratelimit-policy")).toBe('"auth-failures";q=5;w=60');
    expect(locked.headers.get("ratelimit")).toMatch(/^"auth-failures";r=0;t=\d+$/);
  });

  it("answers the 21st token request of a minute with 429", async () => {
    const client = await sandbox.admin.createClient({ merchantCode: sandbox.merchant.code, name: "busy", scopes: ["shipments:read"] });
    const credentials = { clientId: client.client!.clientId, clientSecret: client.clientSecret };
    const statuses = [];
    for (let i = 0; i < 21; i++) statuses.push((await requestToken(sandbox.baseUrl, { grant_type: "client_credentials" }, credentials)).status);
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses[20]).toBe(429);
  });

  it("answers any body that is not a form with invalid_request, an oversized one with 413, a GET with 405", async () => {
    for (const [contentType, body] of [["text/plain", "grant_type=client_credentials"], ["application/json", "{nope"], ["application/json", '{"grant_type":"client_credentials"}']]) {
      await oauthError(await fetch(`${sandbox.baseUrl}/oauth/token`, { method: "POST", headers: { "content-type": contentType! }, body }), 400, "invalid_request");
    }
    await oauthError(await fetch(`${sandbox.baseUrl}/oauth/token`, { method: "POST" }), 400, "invalid_request");
    await problem(
      await fetch(`${sandbox.baseUrl}/oauth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `grant_type=client_credentials&pad=${"x".repeat(257 * 1024)}` }),
      413,
      "PAYLOAD_TOO_LARGE",
    );
    const res = await fetch(`${sandbox.baseUrl}/oauth/token`);
    await problem(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("bearer tokens at the gateway", () => {
  const me = (stack: Stack, authorization?: string) => fetch(`${stack.baseUrl}/v2/external/me`, authorization ? { headers: { authorization } } : {});

  it("serves the token's merchant profile", async () => {
    const res = await me(sandbox, `Bearer ${await accessToken(sandbox.baseUrl, sandbox.merchant.full)}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ code: sandbox.merchant.code, displayName: `${sandbox.merchant.code} Store`, legalName: `${sandbox.merchant.code} Trading LLC`, status: "ACTIVE" });
    const readOnly = await me(sandbox, `Bearer ${await accessToken(sandbox.baseUrl, sandbox.merchant.readOnly)}`);
    expect(readOnly.status).toBe(200);
  });

  it("asks for a token with the bare Bearer challenge when none was sent", async () => {
    const res = await me(sandbox);
    await problem(res, 401, "AUTHENTICATION_REQUIRED");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tawsil"');
  });

  it("rejects every bad token with 401 invalid_token", async () => {
    const now = Math.floor(Date.now() / 1000);
    const valid = {
      iss: "https://sandbox.api.tawsil.sa",
      aud: "https://api.tawsil.sa/v2",
      sub: sandbox.merchant.full.clientId,
      merchant_id: sandbox.merchant.id,
      scope: "shipments:read",
      iat: now,
      nbf: now,
      exp: now + 600,
      jti: randomUUID(),
    };
    const good = await sandbox.signWithIssuerKey(valid);
    const [head, payload, signature] = good.split(".") as [string, string, string];
    const tamperedPayload = Buffer.from(JSON.stringify({ ...valid, merchant_id: randomUUID() })).toString("base64url");
    const jwk = (await sandbox.admin.rotateSigningKey({}).then(() => fetch(`${sandbox.baseUrl}/.well-known/jwks.json`)).then((r) => r.json())) as { keys: { kid: string }[] };
    const publicKeyText = JSON.stringify(jwk.keys[0]);
    const foreign = await generateKeyPair("ES256");
    const foreignKid = (await exportJWK(foreign.publicKey)).x!;

    const cases: Record<string, string> = {
      "malformed": "Bearer not-a-jwt",
      "not a bearer scheme": `Basic ${Buffer.from("a:b").toString("base64")}`,
      "empty bearer": "Bearer ",
      "alg none": `Bearer ${new UnsecuredJWT(valid).encode()}`,
      "HS256 signed with the public key": `Bearer ${await new SignJWT(valid).setProtectedHeader({ alg: "HS256", kid: jwk.keys[0]!.kid }).sign(new TextEncoder().encode(publicKeyText))}`,
      "expired": `Bearer ${await sandbox.signWithIssuerKey({ ...valid, iat: now - 7200, nbf: now - 7200, exp: now - 120 })}`,
      "not yet valid": `Bearer ${await sandbox.signWithIssuerKey({ ...valid, iat: now + 300, nbf: now + 300, exp: now + 3900 })}`,
      "wrong issuer": `Bearer ${await sandbox.signWithIssuerKey({ ...valid, iss: "https://evil.example" })}`,
      "wrong audience": `Bearer ${await sandbox.signWithIssuerKey({ ...valid, aud: "https://other.example" })}`,
      "tampered payload": `Bearer ${head}.${tamperedPayload}.${signature}`,
      "unknown kid": `Bearer ${await new SignJWT(valid).setProtectedHeader({ alg: "ES256", kid: foreignKid }).sign(foreign.privateKey)}`,
      "other environment's token": `Bearer ${await accessToken(production.baseUrl, production.merchant.full)}`,
    };
    expect(payload.length).toBeGreaterThan(0);
    for (const [name, authorization] of Object.entries(cases)) {
      const res = await me(sandbox, authorization);
      expect({ name, status: res.status }).toEqual({ name, status: 401 });
      expect({ name, challenge: res.headers.get("www-authenticate") }).toEqual({ name, challenge: 'Bearer realm="tawsil", error="invalid_token"' });
      await problem(res, 401, "AUTHENTICATION_REQUIRED");
    }
    // The token the matrix tampered with was good, and still is after the rotation.
    expect((await me(sandbox, `Bearer ${good}`)).status).toBe(200);
  });

  it("requires the issuer's kid and its at+jwt typ on every token, even with a single signing key", async () => {
    // Production's stack never rotates, so its JWKS holds one key: a kid-less token would match it.
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: "https://api.tawsil.sa",
      aud: "https://api.tawsil.sa/v2",
      sub: production.merchant.full.clientId,
      merchant_id: production.merchant.id,
      scope: "shipments:read",
      iat: now,
      exp: now + 600,
      jti: randomUUID(),
    };
    const accepted = await me(production, `Bearer ${await production.signWithIssuerKey(claims, (kid) => ({ alg: "ES256", kid, typ: "at+jwt" }))}`);
    expect(accepted.status).toBe(200);
    const refused: Record<string, string> = {
      "no kid": await production.signWithIssuerKey(claims, () => ({ alg: "ES256", typ: "at+jwt" })),
      "typ JWT": await production.signWithIssuerKey(claims, (kid) => ({ alg: "ES256", kid, typ: "JWT" })),
      "no typ": await production.signWithIssuerKey(claims, (kid) => ({ alg: "ES256", kid })),
    };
    for (const [name, token] of Object.entries(refused)) {
      const res = await me(production, `Bearer ${token}`);
      expect({ name, challenge: res.headers.get("www-authenticate") }).toEqual({ name, challenge: 'Bearer realm="tawsil", error="invalid_token"' });
      await problem(res, 401, "AUTHENTICATION_REQUIRED");
    }
  });

  it("keeps tokens of the two environments apart in both directions", async () => {
    const fromSandbox = await accessToken(sandbox.baseUrl, sandbox.merchant.full);
    const fromProduction = await accessToken(production.baseUrl, production.merchant.full);
    expect((await me(sandbox, `Bearer ${fromSandbox}`)).status).toBe(200);
    expect((await me(production, `Bearer ${fromProduction}`)).status).toBe(200);
    await problem(await me(production, `Bearer ${fromSandbox}`), 401, "AUTHENTICATION_REQUIRED");
    await problem(await me(sandbox, `Bearer ${fromProduction}`), 401, "AUTHENTICATION_REQUIRED");
    expect(decodeJwt(fromProduction).iss).toBe("https://api.tawsil.sa");
  });

  it("refuses a valid token without the operation's scope with 403 ACCESS_DENIED", async () => {
    const readOnly = await accessToken(sandbox.baseUrl, sandbox.merchant.readOnly);
    const res = await fetch(`${sandbox.baseUrl}/test/needs-write`, { headers: { authorization: `Bearer ${readOnly}` } });
    await problem(res, 403, "ACCESS_DENIED");
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tawsil", error="insufficient_scope", scope="shipments:write"');
    const narrowed = await accessToken(sandbox.baseUrl, sandbox.merchant.full, "shipments:read");
    await problem(await fetch(`${sandbox.baseUrl}/test/needs-write`, { headers: { authorization: `Bearer ${narrowed}` } }), 403, "ACCESS_DENIED");
    const full = await accessToken(sandbox.baseUrl, sandbox.merchant.full);
    const allowed = await fetch(`${sandbox.baseUrl}/test/needs-write`, { headers: { authorization: `Bearer ${full}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ merchantId: sandbox.merchant.id });
  });

  it("limits each OAuth client to its burst, then its sustained rate, with 429 and RateLimit fields", async () => {
    const limited = await startStack({ adminUrl, environment: "sandbox", gatewayEnv: { RATE_LIMIT_BURST: "3", RATE_LIMIT_PER_SECOND: "0.5" } });
    try {
      const token = await accessToken(limited.baseUrl, limited.merchant.full);
      const other = await accessToken(limited.baseUrl, limited.merchant.readOnly);
      const call = (t: string) => fetch(`${limited.baseUrl}/v2/external/me`, { headers: { authorization: `Bearer ${t}` } });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(token)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await call(token);
      await problem(refused, 429, "RATE_LIMITED");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get("ratelimit-policy")).toBe('"client";q=3;w=6');
      expect(refused.headers.get("ratelimit")).toMatch(/^"client";r=0;t=[1-9]\d*$/);
      expect((await call(other)).status).toBe(200); // another client has its own budget
    } finally {
      await limited.close();
    }
  });

  it("answers a method the resource does not support with 405 and Allow", async () => {
    const res = await fetch(`${sandbox.baseUrl}/v2/external/me`, { method: "DELETE" });
    await problem(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });

  it("publishes the issuer's keys", async () => {
    const res = await fetch(`${sandbox.baseUrl}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: Record<string, string>[] };
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
      expect(key).not.toHaveProperty("d");
    }
  });
});
