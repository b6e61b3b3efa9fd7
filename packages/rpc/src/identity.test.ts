import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { ShipmentAdminService } from "@tawsil/proto/tawsil/shipment/v1/shipment_admin_service_pb";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, exportJWK, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { authorize, type CallerCheck } from "./caller-check";
import { CallerPolicy, callersOf, operatorService } from "./caller-policy";
import { CallerVerifier } from "./caller-verifier";
import { createLogger } from "@tawsil/logging";
import { processIdentity } from "./identity";
import { keyIdOf } from "./key-id";
import { generateIdentityKeys, identityKeysOf, mintServiceToken } from "./identity-keys";
import { audienceOf, SERVICE_TOKEN_HEADER, ServiceIdentity } from "./service-identity";

const keys = generateIdentityKeys(["gateway", "dispatch"]);
const privateKey = (name: string): KeyObject => createPrivateKey({ key: Buffer.from(keys[name]!.privateKey, "base64"), format: "der", type: "pkcs8" });
const publicKeyOf = (base64: string): KeyObject => createPublicKey({ key: Buffer.from(base64, "base64"), format: "der", type: "spki" });
const publicKeys = new Map(Object.entries(keys).map(([name, pair]) => [name, [publicKeyOf(pair.publicKey)]]));

const shipmentPolicy = new CallerPolicy([
  callersOf(ShipmentService, {
    createShipment: ["gateway"],
    getShipment: ["gateway", "dispatch"],
    listShipments: ["gateway"],
    cancelShipment: ["gateway"],
    reserveForOffer: ["dispatch"],
    applyDispatchStep: ["dispatch"],
    findTrackedShipment: ["tracking"],
  }),
  operatorService(ShipmentAdminService),
]);

describe("ServiceIdentity", () => {
  it("signs an EdDSA token naming itself and the callee, valid for a minute", async () => {
    const token = await new ServiceIdentity("gateway", privateKey("gateway"), () => 1_700_000_000_000).sign("shipment");
    expect(decodeProtectedHeader(token)).toEqual({ alg: "EdDSA", kid: keyIdOf(privateKey("gateway")), typ: "JWT" });
    // The kid is the RFC 7638 thumbprint of the public key: what jose computes for its JWK.
    expect(keyIdOf(privateKey("gateway"))).toBe(await calculateJwkThumbprint(await exportJWK(publicKeyOf(keys.gateway!.publicKey))));
    expect(decodeJwt(token)).toEqual({ iss: "gateway", sub: "gateway", aud: "shipment", iat: 1_700_000_000, exp: 1_700_000_060 });
  });

  it("reuses one token per callee until it is due, renews it in the background, and never sends one about to expire", async () => {
    let now = 1_700_000_000_000;
    const identity = new ServiceIdentity("gateway", privateKey("gateway"), () => now);
    const first = await identity.tokenFor("shipment");
    expect(identity.tokenFor("shipment")).toBe(first);
    expect(identity.tokenFor("pricing")).toBeInstanceOf(Promise);
    now += 39_000;
    expect(identity.tokenFor("shipment")).toBe(first);
    now += 2_000; // 41 s: within 20 s of expiry, still sent while the next one is signed
    expect(identity.tokenFor("shipment")).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const renewed = identity.tokenFor("shipment");
    expect(typeof renewed === "string" && renewed !== first).toBe(true);
    expect(decodeJwt(renewed as string).exp).toBe(1_700_000_041 + 60);

    const late = new ServiceIdentity("gateway", privateKey("gateway"), () => now);
    const token = await late.tokenFor("tracking");
    now += 56_000; // 4 s left: too close, a fresh signature is awaited
    const next = late.tokenFor("tracking");
    expect(next).toBeInstanceOf(Promise);
    expect(await next).not.toBe(token);
  });

  it("shares one signature between concurrent first calls", async () => {
    const identity = new ServiceIdentity("gateway", privateKey("gateway"));
    const [a, b] = await Promise.all([identity.tokenFor("shipment"), identity.tokenFor("shipment")]);
    expect(a).toBe(b);
  });

  it("derives the callee from a service's type name", () => {
    expect(audienceOf(ShipmentService.typeName)).toBe("shipment");
    expect(audienceOf(DriverService.typeName)).toBe("dispatch");
    expect(() => audienceOf("grpc.health.v1.Health")).toThrow();
  });
});

describe("CallerVerifier", () => {
  const t0 = 1_700_000_000_000;

  it("accepts a token from a known caller for this service and names the caller", async () => {
    const verifier = new CallerVerifier("shipment", publicKeys, () => t0 + 1000);
    const token = await new ServiceIdentity("dispatch", privateKey("dispatch"), () => t0).sign("shipment");
    expect(verifier.cached(token)).toBeUndefined();
    expect(await verifier.verify(token)).toBe("dispatch");
    expect(verifier.cached(token)).toBe("dispatch");
  });

  it("refuses a token for another service, an expired one, a forged one, an unknown caller's and garbage", async () => {
    let now = t0;
    const verifier = new CallerVerifier("shipment", publicKeys, () => now);
    const forPricing = await new ServiceIdentity("gateway", privateKey("gateway"), () => t0).sign("pricing");
    expect(await verifier.verify(forPricing)).toBeUndefined();

    // Signed with another key while claiming to be the gateway.
    const forged = await new ServiceIdentity("gateway", generateKeyPairSync("ed25519").privateKey, () => t0).sign("shipment");
    expect(await verifier.verify(forged)).toBeUndefined();
    // A key of the right caller, but a kid that names someone else.
    const claimsDispatch = await new SignJWT({}).setProtectedHeader({ alg: "EdDSA", kid: "dispatch" }).setIssuer("gateway").setSubject("gateway")
      .setAudience("shipment").setIssuedAt(t0 / 1000).setExpirationTime(t0 / 1000 + 60).sign(privateKey("gateway"));
    expect(await verifier.verify(claimsDispatch)).toBeUndefined();
    const stranger = await new ServiceIdentity("webhook", generateKeyPairSync("ed25519").privateKey, () => t0).sign("shipment");
    expect(await verifier.verify(stranger)).toBeUndefined();
    expect(await verifier.verify("not.a.token")).toBeUndefined();
    expect(await verifier.verify("x".repeat(5000))).toBeUndefined();

    const good = await new ServiceIdentity("gateway", privateKey("gateway"), () => t0).sign("shipment");
    expect(await verifier.verify(good)).toBe("gateway");
    now = t0 + 60_000 + 11_000; // past exp and the 10 s clock tolerance: the cached verdict expires too
    expect(verifier.cached(good)).toBeUndefined();
    expect(await verifier.verify(good)).toBeUndefined();
  });

  it("trusts every key listed for a caller, each token checked against the key its kid names, while a key is rotated", async () => {
    const verifier = new CallerVerifier("shipment", publicKeys, () => t0 + 1000);
    const next = generateKeyPairSync("ed25519");
    const during = new CallerVerifier("shipment", new Map([...publicKeys, ["gateway", [publicKeyOf(keys.gateway!.publicKey), next.publicKey]]]), () => t0 + 1000);
    const after = new CallerVerifier("shipment", new Map([...publicKeys, ["gateway", [next.publicKey]]]), () => t0 + 1000);
    const old = await new ServiceIdentity("gateway", privateKey("gateway"), () => t0).sign("shipment");
    const rotated = await new ServiceIdentity("gateway", next.privateKey, () => t0).sign("shipment");
    expect([await verifier.verify(old), await verifier.verify(rotated)]).toEqual(["gateway", undefined]);
    expect([await during.verify(old), await during.verify(rotated)]).toEqual(["gateway", "gateway"]);
    expect([await after.verify(old), await after.verify(rotated)]).toEqual([undefined, "gateway"]);

    // A caller on a version before key ids names itself as kid: still verified, against each of its keys.
    const legacy = (key: KeyObject) => new SignJWT({}).setProtectedHeader({ alg: "EdDSA", kid: "gateway" }).setIssuer("gateway").setSubject("gateway")
      .setAudience("shipment").setIssuedAt(t0 / 1000).setExpirationTime(t0 / 1000 + 60).sign(key);
    expect([await during.verify(await legacy(privateKey("gateway"))), await during.verify(await legacy(next.privateKey))]).toEqual(["gateway", "gateway"]);
    // Another caller's key id does not make the gateway's token that caller's, nor does the gateway's key sign for dispatch.
    const borrowedKid = await new SignJWT({}).setProtectedHeader({ alg: "EdDSA", kid: keyIdOf(privateKey("dispatch")) }).setIssuer("gateway").setSubject("gateway")
      .setAudience("shipment").setIssuedAt(t0 / 1000).setExpirationTime(t0 / 1000 + 60).sign(privateKey("gateway"));
    expect(await during.verify(borrowedKid)).toBeUndefined();
    const asDispatch = await new SignJWT({}).setProtectedHeader({ alg: "EdDSA", kid: keyIdOf(privateKey("gateway")) }).setIssuer("dispatch").setSubject("dispatch")
      .setAudience("shipment").setIssuedAt(t0 / 1000).setExpirationTime(t0 / 1000 + 60).sign(privateKey("gateway"));
    expect(await during.verify(asDispatch)).toBeUndefined();
  });

  it("mints tokens for tests from make dev's or the mesh's keys", async () => {
    const same = identityKeysOf({ dispatch: keys.dispatch!.privateKey });
    expect(same.dispatch?.publicKey).toBe(keys.dispatch?.publicKey);
    expect(await new CallerVerifier("shipment", publicKeys).verify(await mintServiceToken(keys, "dispatch", "shipment"))).toBe("dispatch");
  });
});

describe("authorize against a service's allow-list", () => {
  const check: CallerCheck = { verifier: new CallerVerifier("shipment", publicKeys), policy: shipmentPolicy };
  const headers = (token?: string) => new Headers(token === undefined ? {} : { [SERVICE_TOKEN_HEADER]: token });
  const procedure = (method: string) => `${ShipmentService.typeName}/${method}`;
  const codeOf = async (run: () => unknown) => {
    try {
      return await run();
    } catch (error) {
      return error instanceof ConnectError ? Code[error.code] : error;
    }
  };

  it("admits the callers a method names and refuses the others with PermissionDenied", async () => {
    const gateway = await mintServiceToken(keys, "gateway", "shipment");
    const dispatch = await mintServiceToken(keys, "dispatch", "shipment");
    const run = (method: string, token: string) => codeOf(() => authorize(check, ShipmentService.typeName, procedure(method), headers(token)));
    expect(await run("CreateShipment", gateway)).toBe("gateway");
    expect(await run("ReserveForOffer", gateway)).toBe("PermissionDenied");
    expect(await run("ApplyDispatchStep", gateway)).toBe("PermissionDenied");
    expect(await run("ReserveForOffer", dispatch)).toBe("dispatch");
    expect(await run("CreateShipment", dispatch)).toBe("PermissionDenied");
    // A verified token is answered from the cache, synchronously.
    expect(authorize(check, ShipmentService.typeName, procedure("GetShipment"), headers(dispatch))).toBe("dispatch");
    expect(await run("NoSuchMethod", gateway)).toBe("PermissionDenied");
  });

  it("refuses a call without a token or with an invalid one with Unauthenticated", async () => {
    expect(await codeOf(() => authorize(check, ShipmentService.typeName, procedure("CreateShipment"), headers()))).toBe("Unauthenticated");
    expect(await codeOf(() => authorize(check, ShipmentService.typeName, procedure("CreateShipment"), headers("forged")))).toBe("Unauthenticated");
  });

  it("asks no token of the health protocol and operator services", () => {
    expect(authorize(check, "grpc.health.v1.Health", "grpc.health.v1.Health/Check", headers())).toBe("anonymous");
    expect(authorize(check, ShipmentAdminService.typeName, `${ShipmentAdminService.typeName}/ApproveShipment`, headers())).toBe("anonymous");
  });

  it("lists every caller its methods admit (what the network policy must let in)", () => {
    expect(shipmentPolicy.callers()).toEqual(["dispatch", "gateway", "tracking"]);
  });
});

describe("processIdentity", () => {
  const base = { NODE_ENV: "production", TAWSIL_ENVIRONMENT: "sandbox", LOG_LEVEL: "info", HOST: "0.0.0.0", PORT: 7002, SHUTDOWN_GRACE_MS: 10_000 } as const;
  const logger = createLogger({ service: "test", level: "silent" });

  it("refuses to start a production process without its key or, for a service, its callers' keys", () => {
    expect(() => processIdentity("shipment", base, logger, shipmentPolicy)).toThrow(/SERVICE_IDENTITY_PRIVATE_KEY and SERVICE_IDENTITY_PUBLIC_KEYS/);
    expect(() => processIdentity("shipment", { ...base, SERVICE_IDENTITY_PRIVATE_KEY: privateKey("gateway") }, logger, shipmentPolicy)).toThrow(/SERVICE_IDENTITY_PUBLIC_KEYS/);
    // The gateway serves no RPC: its own key is all it needs.
    expect(processIdentity("gateway", { ...base, SERVICE_IDENTITY_PRIVATE_KEY: privateKey("gateway") }, logger).self?.name).toBe("gateway");
  });

  it("signs and checks callers when configured, and does neither in a local run without keys", () => {
    const configured = processIdentity("shipment", { ...base, SERVICE_IDENTITY_PRIVATE_KEY: privateKey("dispatch"), SERVICE_IDENTITY_PUBLIC_KEYS: publicKeys }, logger, shipmentPolicy);
    expect(configured.self?.name).toBe("shipment");
    expect(configured.callers?.policy).toBe(shipmentPolicy);
    const local = processIdentity("shipment", { ...base, NODE_ENV: "development" }, logger, shipmentPolicy);
    expect(local).toEqual({ self: undefined, callers: undefined });
  });

  it("names its key as its tokens' kid, or itself for the rollout that upgrades from a release before key ids (which refuses any other kid)", async () => {
    const byKey = processIdentity("dispatch", { ...base, SERVICE_IDENTITY_PRIVATE_KEY: privateKey("dispatch") }, logger).self!;
    const byName = processIdentity("dispatch", { ...base, SERVICE_IDENTITY_PRIVATE_KEY: privateKey("dispatch"), SERVICE_IDENTITY_TOKEN_KID: "name" }, logger).self!;
    expect(decodeProtectedHeader(await byKey.sign("shipment")).kid).toBe(keyIdOf(privateKey("dispatch")));
    const legacy = await byName.sign("shipment");
    expect(decodeProtectedHeader(legacy).kid).toBe("dispatch");
    expect(await new CallerVerifier("shipment", publicKeys).verify(legacy)).toBe("dispatch");
  });
});
