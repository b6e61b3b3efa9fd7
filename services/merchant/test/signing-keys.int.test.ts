import { randomBytes } from "node:crypto";
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { afterAll, afterEach, describe, expect, inject, it } from "vitest";
import { createPrismaClient, disconnect } from "@tawsil/db";
import { capturedLogger } from "@tawsil/testing";
import { SigningKeyRing } from "../src/app/signing-key-ring";
import { es256Signer } from "../src/infra/es256";
import { KeyEncryption } from "../src/infra/key-encryption";
import { PrismaClient } from "../src/infra/prisma/generated/client";
import { SigningKeyRepository } from "../src/infra/repositories/signing-keys";
import { createMerchantDatabase, query, startTestService, type TestService } from "./support";

const adminUrl = inject("databaseAdminUrl");
const AUDIENCE = "https://api.tawsil.sa/v2";

const drops: (() => Promise<void>)[] = [];
const services: TestService[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

async function freshDatabase(label: string): Promise<string> {
  const db = await createMerchantDatabase(adminUrl, label);
  drops.push(db.drop);
  return db.url;
}

async function start(url: string, opts: Parameters<typeof startTestService>[1] = {}): Promise<TestService> {
  const service = await startTestService(url, opts);
  services.push(service);
  return service;
}

async function seedClient(service: TestService): Promise<{ clientId: string; clientSecret: string; scopes: string[] }> {
  await service.admin.createMerchant({ code: "KEYS", displayName: "Keys", legalName: "Keys Ltd" });
  const res = await service.admin.createClient({ merchantCode: "KEYS", name: "keys", scopes: ["shipments:read"] });
  return { clientId: res.client?.clientId ?? "", clientSecret: res.clientSecret, scopes: [] };
}

async function jwksOf(service: TestService) {
  const { keys } = await service.merchant.listSigningKeys({});
  return { kids: keys.map((key) => key.kid), set: createLocalJWKSet({ keys: keys.map(({ kid, kty, crv, x, y, alg, use }) => ({ kid, kty, crv, x, y, alg, use })) }) };
}

describe("signing keys", () => {
  it("creates exactly one current key when several instances start together on a fresh database", async () => {
    const url = await freshDatabase("keys_race");
    await Promise.all([start(url), start(url), start(url), start(url)]);
    const rows = await query<{ kid: string; retired_at: Date | null }>(url, "SELECT kid, retired_at FROM signing_key");
    expect(rows).toHaveLength(1);
    expect(rows[0]?.retired_at).toBeNull();
    const answers = await Promise.all(services.map(async (service) => (await service.merchant.listSigningKeys({})).keys.map((key) => key.kid)));
    expect(answers).toEqual(services.map(() => [rows[0]?.kid]));
  });

  it("keeps the private key only sealed at rest, and refuses to start under another encryption key", async () => {
    const url = await freshDatabase("keys_sealed");
    await start(url);
    const [row] = await query<{ private_key_encrypted: Uint8Array }>(url, "SELECT private_key_encrypted FROM signing_key");
    const stored = Buffer.from(row?.private_key_encrypted ?? new Uint8Array());
    expect(stored.length).toBeGreaterThan(200);
    expect(stored.toString("latin1")).not.toContain("PRIVATE KEY");
    await expect(startTestService(url, { env: { SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64") } })).rejects.toThrow();
  });

  it("rotates: tokens signed before stay verifiable, new tokens carry the new kid, the old key is published until its tokens expire", async () => {
    const url = await freshDatabase("keys_rotate");
    const service = await start(url);
    const client = await seedClient(service);
    const before = await service.merchant.issueAccessToken(client);
    const oldKid = decodeProtectedHeader(before.accessToken).kid;

    const rotatedAt = Date.now();
    const { kid: newKid } = await service.admin.rotateSigningKey({});
    expect(newKid).not.toBe(oldKid);

    const after = await service.merchant.issueAccessToken(client);
    expect(decodeProtectedHeader(after.accessToken).kid).toBe(newKid);

    const jwks = await jwksOf(service);
    expect(jwks.kids).toEqual([newKid, oldKid]);
    const issuer = "https://sandbox.api.tawsil.sa";
    await expect(jwtVerify(before.accessToken, jwks.set, { issuer, audience: AUDIENCE })).resolves.toBeDefined();
    await expect(jwtVerify(after.accessToken, jwks.set, { issuer, audience: AUDIENCE })).resolves.toBeDefined();

    const [retired] = await query<{ retired_at: Date; publish_until: Date }>(url, "SELECT retired_at, publish_until FROM signing_key WHERE kid = $1", oldKid);
    const window = (retired?.publish_until.getTime() ?? 0) - (retired?.retired_at.getTime() ?? 0);
    expect(window).toBe((3600 + 60) * 1000);
    expect(Math.abs((retired?.retired_at.getTime() ?? 0) - rotatedAt)).toBeLessThan(5_000);

    // Once its publication window has passed, the old key leaves the JWKS.
    await query(url, "UPDATE signing_key SET publish_until = now() - interval '1 second' WHERE kid = $1", oldKid);
    expect((await jwksOf(service)).kids).toEqual([newKid]);
  });

  it("rotates its encryption key: replicas opening with both keys start and sign, a signing key rotation seals under the new one, which then starts alone", async () => {
    const url = await freshDatabase("keys_kek");
    const [OLD, NEW] = [randomBytes(32).toString("base64"), randomBytes(32).toString("base64")];
    const before = await start(url, { env: { SIGNING_KEY_ENCRYPTION_KEY: OLD } });
    const client = await seedClient(before);
    const first = await before.merchant.issueAccessToken(client);
    // 1. publish, 2. switch (mid-rollout: replicas of both steps at once).
    const published = await start(url, { env: { SIGNING_KEY_ENCRYPTION_KEY: OLD, SIGNING_KEY_DECRYPTION_KEYS: NEW } });
    const switched = await start(url, { env: { SIGNING_KEY_ENCRYPTION_KEY: NEW, SIGNING_KEY_DECRYPTION_KEYS: OLD } });
    for (const replica of [published, switched]) expect(decodeProtectedHeader((await replica.merchant.issueAccessToken(client)).accessToken).kid).toBe(decodeProtectedHeader(first.accessToken).kid);
    // Without the old key the current signing key cannot be opened: this is why the old key stays until the rotation below.
    await expect(startTestService(url, { env: { SIGNING_KEY_ENCRYPTION_KEY: NEW } })).rejects.toThrow();
    const { kid } = await switched.admin.rotateSigningKey({});
    // 3. retire: the new key alone opens the current signing key, and every token issued so far still verifies.
    const retired = await start(url, { env: { SIGNING_KEY_ENCRYPTION_KEY: NEW } });
    const after = await retired.merchant.issueAccessToken(client);
    expect(decodeProtectedHeader(after.accessToken).kid).toBe(kid);
    const jwks = await jwksOf(retired);
    for (const token of [first.accessToken, after.accessToken]) await expect(jwtVerify(token, jwks.set, { issuer: "https://sandbox.api.tawsil.sa", audience: AUDIENCE })).resolves.toBeDefined();
  });

  it("lets another replica pick up a rotation within its refresh interval", async () => {
    const url = await freshDatabase("keys_replicas");
    const a = await start(url, { signingKeyRefreshMs: 300 });
    const b = await start(url, { signingKeyRefreshMs: 300 });
    const client = await seedClient(a);
    const oldKid = decodeProtectedHeader((await b.merchant.issueAccessToken(client)).accessToken).kid;
    const { kid: newKid } = await a.admin.rotateSigningKey({});
    expect(newKid).not.toBe(oldKid);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(decodeProtectedHeader((await b.merchant.issueAccessToken(client)).accessToken).kid).toBe(newKid);
  });

  it("signs from memory: no key read from the database between refreshes, one refresh for concurrent callers", async () => {
    const url = await freshDatabase("keys_cache");
    const db = createPrismaClient(PrismaClient, { url, maxConnections: 2 });
    try {
      const repository = new SigningKeyRepository(db);
      let reads = 0;
      const counting = Object.assign(Object.create(repository) as SigningKeyRepository, {
        current: () => {
          reads++;
          return repository.current();
        },
      });
      const ring = new SigningKeyRing({
        keys: counting,
        encryption: new KeyEncryption(randomBytes(32)),
        signer: es256Signer,
        tokenTtlSeconds: 3600,
        refreshMs: 200,
        logger: capturedLogger("merchant-test").logger,
      });
      const kid = await ring.ensureCurrent();
      const keys = await Promise.all(Array.from({ length: 100 }, () => ring.signingKey()));
      expect(new Set(keys.map((key) => key.kid))).toEqual(new Set([kid]));
      expect(reads).toBe(0);

      await new Promise((resolve) => setTimeout(resolve, 250));
      const refreshed = await Promise.all(Array.from({ length: 50 }, () => ring.signingKey()));
      expect(reads).toBe(1);
      expect(refreshed[0]).toBe(keys[0]); // same kid: the imported key is reused, not decrypted again
    } finally {
      await disconnect(db);
    }
  });
});
