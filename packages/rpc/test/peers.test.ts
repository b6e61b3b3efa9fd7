/**
 * Peer calls on real servers: the caller's service token checked against the allow-list, and one
 * client spreading its calls over two replicas of a service (127.0.0.1 and 127.0.0.2, one port,
 * one name resolving to both), then moving every call to the survivor when one stops.
 */
import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { createLogger } from "@tawsil/logging";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@tawsil/proto/grpc/health/v1/health_pb";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { SignJWT } from "jose";
import { afterEach, describe, expect, it } from "vitest";
import {
  CallerPolicy, CallerVerifier, callersOf, createMetrics, createPeerClient, currentCaller, generateIdentityKeys, identityEnvFor, Readiness,
  SERVICE_TOKEN_HEADER, ServiceIdentity, startRpcServer, type Metrics, type RpcServer,
} from "../src/index";
import { loadConfig, commonEnv } from "@tawsil/config";

const logger = createLogger({ service: "test", level: "silent" });
const keys = generateIdentityKeys(["gateway", "shipment", "dispatch", "pricing"]);
const identityOf = (name: string) => new ServiceIdentity(name, createPrivateKey({ key: Buffer.from(keys[name]!.privateKey, "base64"), format: "der", type: "pkcs8" }));
const POLICY = new CallerPolicy([callersOf(PricingService, { quoteDelivery: ["gateway", "shipment"] })]);

const servers: RpcServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close(100)));
});

/** A pricing stand-in that counts the calls it answers and remembers who made them. */
async function pricingReplica(host: string, port: number, opts: { metrics?: Metrics; checked?: boolean; delayMs?: number } = {}) {
  const served = { count: 0, callers: [] as (string | undefined)[] };
  // The callers' public keys reach a service as its configuration does: one setting, parsed once.
  const config = loadConfig(commonEnv, { PORT: "0", ...identityEnvFor(keys, "pricing") });
  const server = await startRpcServer({
    host,
    port,
    logger,
    metrics: opts.metrics ?? createMetrics("pricing"),
    readiness: new Readiness([], logger),
    routes: (router) =>
      router.service(PricingService, {
        async quoteDelivery() {
          served.count++;
          served.callers.push(currentCaller());
          if (opts.delayMs) await new Promise((resolve) => setTimeout(resolve, opts.delayMs));
          return {};
        },
      }),
    callers: opts.checked === false ? undefined : { verifier: new CallerVerifier("pricing", config.SERVICE_IDENTITY_PUBLIC_KEYS!), policy: POLICY },
  });
  servers.push(server);
  return { server, served };
}

const codeOf = (call: Promise<unknown>) => call.then(() => "ok", (e: unknown) => Code[ConnectError.from(e).code]);

describe("service identity on a real server", () => {
  it("serves the callers the method names, knows who called, and labels its metrics with them", async () => {
    const metrics = createMetrics("pricing");
    const { server, served } = await pricingReplica("127.0.0.1", 0, { metrics });
    const asGateway = createPeerClient(PricingService, server.url, { identity: identityOf("gateway") });
    const asShipment = createPeerClient(PricingService, server.url, { identity: identityOf("shipment") });
    expect(await codeOf(asGateway.quoteDelivery({}))).toBe("ok");
    expect(await codeOf(asShipment.quoteDelivery({}))).toBe("ok");
    expect(served.callers).toEqual(["gateway", "shipment"]);
    const text = await metrics.registry.metrics();
    const counts = text.split("\n").filter((line) => line.startsWith("rpc_server_duration_seconds_count{"));
    expect(counts.filter((line) => line.includes('caller="gateway"') && line.includes('code="ok"') && line.endsWith(" 1"))).toHaveLength(1);
    expect(counts.filter((line) => line.includes('caller="shipment"') && line.endsWith(" 1"))).toHaveLength(1);
  });

  it("refuses a call without a token, with a forged or expired one, or for another service with Unauthenticated", async () => {
    const { server, served } = await pricingReplica("127.0.0.1", 0);
    const anonymous = createPeerClient(PricingService, server.url);
    expect(await codeOf(anonymous.quoteDelivery({}))).toBe("Unauthenticated");
    const withToken = (token: string) => anonymous.quoteDelivery({}, { headers: { [SERVICE_TOKEN_HEADER]: token } });
    const now = Math.floor(Date.now() / 1000);
    const gatewayKey = createPrivateKey({ key: Buffer.from(keys.gateway!.privateKey, "base64"), format: "der", type: "pkcs8" });
    const expired = await new SignJWT({}).setProtectedHeader({ alg: "EdDSA", kid: "gateway" }).setIssuer("gateway").setSubject("gateway")
      .setAudience("pricing").setIssuedAt(now - 120).setExpirationTime(now - 60).sign(gatewayKey);
    expect(await codeOf(withToken(expired))).toBe("Unauthenticated");
    const forged = await new ServiceIdentity("gateway", generateKeyPairSync("ed25519").privateKey).sign("pricing");
    expect(await codeOf(withToken(forged))).toBe("Unauthenticated");
    expect(await codeOf(withToken(await identityOf("gateway").sign("shipment")))).toBe("Unauthenticated");
    expect(served.count).toBe(0);
  });

  it("refuses a known caller the method does not name with PermissionDenied, and keeps health open", async () => {
    const { server, served } = await pricingReplica("127.0.0.1", 0);
    expect(await codeOf(createPeerClient(PricingService, server.url, { identity: identityOf("dispatch") }).quoteDelivery({}))).toBe("PermissionDenied");
    expect(served.count).toBe(0);
    const health = createClient(Health, createConnectTransport({ baseUrl: server.url, httpVersion: "2" }));
    expect((await health.check({ service: "" })).status).toBe(Status.SERVING);
  });
});

describe("a peer client over replicas", () => {
  it("has every first call of a new client wait for its first resolution, and lets a replica that left the name answer the calls it holds", async () => {
    const a = await pricingReplica("127.0.0.1", 0, { delayMs: 400 });
    const port = a.server.port;
    const b = await pricingReplica("127.0.0.2", port, { delayMs: 400 });
    let addresses = ["127.0.0.1", "127.0.0.2"];
    const client = createPeerClient(PricingService, `http://pricing.test:${port}`, {
      identity: identityOf("gateway"),
      timeoutMs: 8000,
      lookup: async () => addresses,
      resolveEveryMs: 50,
    });
    // Eight calls at once from a client that has resolved nothing yet: none fails for want of an address.
    const first = Array.from({ length: 8 }, () => codeOf(client.quoteDelivery({})));
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Replica b's pod is terminating: it leaves the name while it still holds four calls; the next call resolves again.
    addresses = ["127.0.0.1"];
    const later = codeOf(client.quoteDelivery({}));
    expect(await Promise.all([...first, later])).toEqual(Array.from({ length: 9 }, () => "ok"));
    expect(b.served.count).toBe(4);
  });

  it("runs its interceptors once per call, around the replicas it tries: a replica that refused and was passed over is not the call's outcome", async () => {
    // Replica a serves; replica b's address is still named but nothing listens there (its pod restarting).
    const a = await pricingReplica("127.0.0.1", 0);
    const seen: string[] = [];
    const client = createPeerClient(PricingService, `http://pricing.test:${a.server.port}`, {
      identity: identityOf("gateway"),
      timeoutMs: 8000,
      lookup: async () => ["127.0.0.1", "127.0.0.2"],
      // As the gateway's per-peer circuit does: a call that could not reach the service marks it down.
      interceptors: [(next) => (req) => next(req).then((res) => (seen.push("ok"), res), (e: unknown) => (seen.push(Code[ConnectError.from(e).code]), Promise.reject(e)))],
    });
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push(await codeOf(client.quoteDelivery({})));
    expect(codes).toEqual(Array.from({ length: 6 }, () => "ok"));
    expect(seen).toEqual(Array.from({ length: 6 }, () => "ok"));
    expect(a.served.count).toBe(6);
    expect(a.served.callers).toEqual(Array.from({ length: 6 }, () => "gateway"));
  });

  it("spreads calls over every address the name resolves to, and moves them all to the survivor when one stops", async () => {
    const a = await pricingReplica("127.0.0.1", 0, { delayMs: 2 });
    const port = a.server.port;
    const b = await pricingReplica("127.0.0.2", port, { delayMs: 2 });
    const lookups: string[] = [];
    const addresses = ["127.0.0.1", "127.0.0.2"];
    const client = createPeerClient(PricingService, `http://pricing.test:${port}`, {
      identity: identityOf("gateway"),
      // Far above the close's grace, so a call stuck on the stopping replica shows as a reset; and a loaded
      // machine (seven helpers on two cores) does not fail calls by the default 2 s deadline.
      timeoutMs: 8000,
      lookup: async (host) => (lookups.push(host), addresses),
    });

    for (let i = 0; i < 20; i++) await client.quoteDelivery({});
    expect([a.served.count, b.served.count]).toEqual([10, 10]);
    expect(lookups[0]).toBe("pricing.test");

    // Steady load, 8 calls at a time; replica b stops (graceful: in-flight calls finish) midway,
    // while DNS still names it, as it does until the endpoints controller and the DNS cache catch up.
    let failures = 0;
    let done = 0;
    const worker = async () => {
      while (done < 400) {
        done++;
        await client.quoteDelivery({}).catch(() => failures++);
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, worker));
    while (done < 100) await new Promise((resolve) => setTimeout(resolve, 5));
    const bBefore = b.served.count;
    await b.server.close(1000);
    servers.splice(servers.indexOf(b.server), 1);
    const aAtClose = a.served.count;
    await load;
    expect(failures).toBe(0);
    expect(bBefore).toBeGreaterThan(10);
    expect(a.served.count - aAtClose).toBeGreaterThan(100);
    expect(a.served.count + b.served.count).toBe(20 + 400);

  });
});
