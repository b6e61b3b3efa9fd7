import { randomUUID } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { ProblemError } from "../problem/problem-error";
import { authenticate } from "./authenticate";
import { DRIVER_SCOPE } from "./principal";
import type { SigningKeys } from "./signing-keys";
import { InvalidTokenError, TokenVerifier } from "./token-verifier";

/** Issue 30: one verifier for both kinds of token; which audience a token names decides its kind. */
const ISSUER = "https://sandbox.api.tawsil.sa";
const AUDIENCE = "https://api.tawsil.sa/v2";
const DRIVER_AUDIENCE = "https://api.tawsil.sa/v2/driver";

let sign: (claims: Record<string, unknown>) => Promise<string>;
let verifier: TokenVerifier;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256", use: "sig" };
  const resolver = createLocalJWKSet({ keys: [jwk] });
  // The merchant service's published keys, as SigningKeys hands them to jose.
  const keys = { resolver: async () => resolver, refreshForUnknownKid: async () => undefined } as unknown as SigningKeys;
  verifier = new TokenVerifier(keys, { issuer: ISSUER, audience: AUDIENCE, driverAudience: DRIVER_AUDIENCE, clockSkewSeconds: 60 });
  sign = (claims) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid: "k1", typ: "at+jwt" })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime("1h")
      .setJti(randomUUID())
      .sign(privateKey);
});

const merchantClaims = () => ({ aud: AUDIENCE, sub: "client-m", merchant_id: randomUUID(), scope: "shipments:read" });
const driverClaims = (driverId: string = randomUUID()) => ({ aud: DRIVER_AUDIENCE, sub: "client-d", driver_id: driverId, scope: DRIVER_SCOPE });

describe("TokenVerifier with drivers' tokens", () => {
  it("makes a merchant principal of a merchant's token and a driver principal, with no merchant, of a driver's", async () => {
    const merchant = await verifier.verify(await sign(merchantClaims()));
    expect(merchant).toMatchObject({ kind: "merchant", clientId: "client-m" });
    const driverId = randomUUID();
    const driver = await verifier.verify(await sign(driverClaims(driverId.toUpperCase())));
    expect(driver).toMatchObject({ kind: "driver", driverId, merchantId: "", clientId: "client-d" });
    expect([...driver.scopes]).toEqual([DRIVER_SCOPE]);
  });

  it("refuses tokens that mix the kinds: a driver's audience with a merchant, both audiences, a merchant's token naming a driver", async () => {
    const refusals = [
      { ...driverClaims(), merchant_id: randomUUID() },
      { ...driverClaims(), aud: [AUDIENCE, DRIVER_AUDIENCE] },
      { ...merchantClaims(), driver_id: randomUUID() },
      { ...driverClaims(), driver_id: "not-a-uuid" },
      { ...driverClaims(), aud: "https://elsewhere.example/v2" },
    ];
    for (const claims of refusals) await expect(verifier.verify(await sign(claims)), JSON.stringify(claims)).rejects.toBeInstanceOf(InvalidTokenError);
  });
});

describe("authenticate by kind", () => {
  const request = (token: string) => ({ headers: { authorization: `Bearer ${token}` }, principal: undefined }) as unknown as FastifyRequest;
  const run = (hook: ReturnType<typeof authenticate>, req: FastifyRequest) => (hook as (this: unknown, r: FastifyRequest, reply: FastifyReply) => Promise<void>).call(undefined, req, {} as FastifyReply);

  it("admits a driver's token on a driver route and refuses a merchant's there with 403 ACCESS_DENIED", async () => {
    const driverRoute = authenticate(verifier, DRIVER_SCOPE, "driver");
    const ok = request(await sign(driverClaims()));
    await run(driverRoute, ok);
    expect(ok.principal?.kind).toBe("driver");
    const refused = await run(driverRoute, request(await sign(merchantClaims()))).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).code).toBe("ACCESS_DENIED");
  });

  it("refuses a driver's token on a merchant route with 403 ACCESS_DENIED, scoped or not", async () => {
    for (const scope of ["shipments:read", undefined] as const) {
      const refused = await run(authenticate(verifier, scope), request(await sign(driverClaims()))).catch((e: unknown) => e);
      expect((refused as ProblemError).code, String(scope)).toBe("ACCESS_DENIED");
    }
  });
});
