/**
 * Issue 32's last "Done when": a mesh with two replicas of every process keeps every limit and
 * rotates every key under load with no refused request.
 *
 * Two replicas of the gateway and of each service, each process calling its peers by a name that
 * resolves to both replicas (packages/testing/src/mesh), the gateways sharing their limits in one
 * Redis. The sandbox fleet is off: it is one process outside the system (drivers' apps) that calls one
 * gateway and one admin listener, which a rollout here would take away from it, and its drivers'
 * traffic would cost the two cores what the load and the restarts need; creates find drivers on
 * shift, busy, put in dispatch's database before it starts. Steady load (the soak's mix: creates, reads, estimates, cancels, public tracking) goes
 * through both gateways as an ingress sends it while:
 *  - each kind of limit of decisions.md section 14 the gateway enforces is spent through both
 *    gateways, and holds for the deployment within 10%;
 *  - every key is rotated by deploy/README.md's procedures, each rollout replacing one replica of
 *    every Deployment at a time with the new settings while the other serves: the service identity
 *    keys of all seven processes (publish, switch, retire), the merchant's signing key encryption
 *    key with a signing key rotation between (the gateway's token signing key), and the webhook
 *    secret-sealing key with its background re-seal.
 * No answer of the load may be a 401, 403 or 5xx, no process may refuse a caller (UNAUTHENTICATED
 * or PERMISSION_DENIED: "caller refused" in its log), every request gets an answer, the token the
 * load's merchant got before every rotation works to the end, and every created shipment's webhook
 * arrives (each one signed with a secret opened across the sealing key's rotation).
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { decodeProtectedHeader } from "jose";
import { startRedisServer, type RedisServer } from "@tawsil/testing";
import type { Mesh } from "@tawsil/testing/mesh";
import { IDENTITIES, SERVICES } from "@tawsil/topology";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { alternate, alternateAtOnce, asClient, codesFrom, countOf, failedAuthenticationOf, tokenRequestOf, trackingRead } from "../../gateway/test/support/limit-probes";
import { paced } from "../../packages/testing/src/load/driver";
import { webhookEffects } from "../../packages/testing/src/soak/effects";
import { Ledger, soakRoutes } from "../../packages/testing/src/soak/load";
import { soakMerchant, type SoakMerchant } from "../../packages/testing/src/soak/merchants";
import { SoakReceiver } from "../../packages/testing/src/soak/receivers";
import { putFleetOnShift } from "../../services/dispatch/test/support";
import { createAdminClient } from "../../services/merchant/src/cli/admin-client";
import { IdentityObjects } from "./support/identity-objects";
import { IngressLoad } from "./support/ingress-load";
import { laneBrokers } from "./support/lane";
import { startTestMesh, type TestMesh } from "./support/test-mesh";

/**
 * The per-client bucket: a burst of the production size, refilled slowly, so that what refills
 * while the check runs on a loaded machine stays small beside it. The load's merchant spreads its
 * 5 requests a second over LOAD_CLIENTS clients, each well under the rate.
 */
const BURST = 200;
const PER_SECOND = 2;
const LOAD_CLIENTS = 5;
/** The production defaults: the token endpoint's per-client-id window and the lockout. */
const TOKEN_PER_MINUTE = 20;
const FAILURES_BEFORE_LOCKOUT = 5;
/** Public tracking per address across codes: above the load's own 2 reads a second (120 a minute) from 127.0.0.1. */
const TRACKING_PER_ADDRESS = 200;
const SIGNING_KEY_ENCRYPTION = { old: randomBytes(32).toString("base64"), next: randomBytes(32).toString("base64") };
const SEALING = { old: randomBytes(32).toString("base64"), next: randomBytes(32).toString("base64") };

let redis: RedisServer;
let testMesh: TestMesh;
let mesh: Mesh;
let receiver: SoakReceiver;
let merchant: SoakMerchant;
let ledger: Ledger;
let load: IngressLoad;

beforeAll(async () => {
  redis = await startRedisServer();
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    replicas: 2,
    fleet: false,
    // Creates need a driver on shift in the city (decisions.md section 2); busy ones are offered nothing.
    beforeStart: (databaseUrls) => putFleetOnShift(databaseUrls.dispatch, { cities: ["RUH"], busy: true }),
    // Fifteen processes starting at once on two cores, beside the other lane's mesh.
    readyTimeoutMs: 240_000,
    env: {
      RATE_LIMIT_REDIS_URL: redis.url,
      // A deadline a loaded machine meets: a call past it is limited by one replica's memory alone.
      RATE_LIMIT_REDIS_TIMEOUT_MS: "1000",
      RATE_LIMIT_BURST: String(BURST),
      RATE_LIMIT_PER_SECOND: String(PER_SECOND),
      PUBLIC_TRACKING_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: String(TRACKING_PER_ADDRESS),
      // The limit checks' clients speak from addresses of their own, through this "proxy".
      TRUSTED_PROXY_CIDRS: "127.0.0.0/8",
      WEBHOOK_RESEAL_INTERVAL_MS: "1000",
      // Calls between processes on a machine that other meshes load too: slow is not refused.
      PEER_TIMEOUT_MS: "15000",
    },
    serviceEnv: { merchant: { SIGNING_KEY_ENCRYPTION_KEY: SIGNING_KEY_ENCRYPTION.old }, webhook: { WEBHOOK_SECRET_ENCRYPTION_KEY: SEALING.old } },
  });
  mesh = testMesh.mesh;
  receiver = new SoakReceiver("healthy");
  merchant = await soakMerchant(merchantAdminUrl(), mesh.gatewayUrl, "healthy", await receiver.listen());
  ledger = new Ledger();
  const tokens = [merchant.headers.authorization!.slice("Bearer ".length)];
  while (tokens.length < LOAD_CLIENTS) tokens.push(await newClientToken(["shipments:read", "shipments:write"]));
  // A run name long enough that every reference makes a valid Idempotency-Key (16 characters at least).
  const routes = soakRoutes({ run: `replicas-${Date.now().toString(36)}`, ledger, healthy: spreadOver(merchant, tokens), failing: [] });
  // Shipments for the reads, cancels and tracking links to start on.
  const warmUp = await paced(routes[0]!.endpoint(mesh.gatewayUrl), { connections: 1, seconds: 3, rate: 1 });
  if (ledger.created.length === 0) throw new Error(`the warm-up created no shipment: ${warmUp.failures.join(" | ")}`);
  load = new IngressLoad(mesh.gatewayUrls);
  load.start(routes);
}, 360_000);

afterAll(async () => {
  await load?.stop();
  await receiver?.close();
  await testMesh?.close();
  await redis?.stop();
});

const merchantAdminUrl = () => mesh.processes.find((p) => p.name === "merchant")!.adminUrl!;

/** A fresh client of the load's merchant, and its token (each limit check spends a budget of its own). */
async function newClientToken(scopes = ["shipments:read"]): Promise<string> {
  const { client, clientSecret } = await createAdminClient(merchantAdminUrl()).createClient({ merchantCode: merchant.code, name: `replicas ${Math.random()}`, scopes });
  return testMesh.tokenFor(client!.clientId, clientSecret);
}

/** `m` sending each request as the next of its clients (`tokens`), in turn. */
function spreadOver(m: SoakMerchant, tokens: readonly string[]): SoakMerchant {
  let turn = 0;
  return {
    ...m,
    get headers() {
      return { ...m.headers, authorization: `Bearer ${tokens[turn++ % tokens.length]}` };
    },
  };
}

/** Expects `passed` within 10% of `limit`, and says so. */
function holds(what: string, passed: number, limit: number): void {
  console.log(`[replicas] ${what}: ${passed} passed through both gateways, limit ${limit}`);
  expect(passed).toBeGreaterThanOrEqual(Math.floor(limit * 0.9));
  expect(passed).toBeLessThanOrEqual(Math.ceil(limit * 1.1));
}

describe("a mesh with two replicas of every process, under steady load through both gateways", () => {
  it("holds each kind of the gateway's limits for the deployment, within 10%", { timeout: 180_000 }, async () => {
    const bases = mesh.gatewayUrls;
    const created = ledger.created[0]!.id;

    // The per-client bucket: what passes is the burst and what refilled meanwhile.
    const token = await newClientToken();
    const started = performance.now();
    const reads = await alternateAtOnce(bases, BURST * 2, asClient(token, `/v2/external/shipments/${created}`));
    const refilled = Math.floor((PER_SECOND * (performance.now() - started)) / 1000);
    expect(countOf(reads, 200) + countOf(reads, 429)).toBe(BURST * 2);
    holds(`per-client burst ${BURST} (+${refilled} refilled at ${PER_SECOND}/s)`, countOf(reads, 200), BURST + refilled);

    // The token endpoint's window per client id.
    const asks = await alternate(bases, TOKEN_PER_MINUTE * 3, tokenRequestOf(`tws_ci_${randomBytes(16).toString("hex").slice(0, 22)}`));
    expect(countOf(asks, 400) + countOf(asks, 429)).toBe(TOKEN_PER_MINUTE * 3);
    holds(`token requests per client id per minute`, countOf(asks, 400), TOKEN_PER_MINUTE);

    // The lockout after failed client authentications.
    const failures = await alternate(bases, FAILURES_BEFORE_LOCKOUT * 3, failedAuthenticationOf(`lock-me-${randomBytes(4).toString("hex")}`));
    expect(countOf(failures, 401) + countOf(failures, 429)).toBe(FAILURES_BEFORE_LOCKOUT * 3);
    holds("failed authentications before the lockout", countOf(failures, 401), FAILURES_BEFORE_LOCKOUT);

    // Public tracking's window per client address, across codes.
    const address = `198.51.100.${1 + Math.floor(Math.random() * 200)}`;
    const tracking = await alternateAtOnce(bases, TRACKING_PER_ADDRESS * 2, trackingRead(codesFrom(address), address));
    holds("public tracking reads per address per minute", tracking.length - countOf(tracking, 429), TRACKING_PER_ADDRESS);

    const storeErrors = await Promise.all(mesh.processes.filter((p) => p.replicaOf === "gateway").map((p) => metric(p.metricsUrl, "gateway_rate_limit_store_errors_total")));
    console.log(`[replicas] requests limited by one replica's memory (Redis late or away): ${storeErrors.join(", ")}`);
  });

  it("rotates every key, one replica at a time, with no refused request", { timeout: 300_000 }, async () => {
    const identities = new IdentityObjects(mesh.identityKeys);
    const rotateIdentities = (phase: "publish" | "switch" | "retire") => IDENTITIES.forEach((name) => identities.rotate(phase, name));
    const envOf = (settings: { merchant: Record<string, string>; webhook: Record<string, string> }) => (name: string) => ({
      ...identities.envOf(name),
      ...(name === "merchant" ? settings.merchant : name === "webhook" ? settings.webhook : {}),
    });
    const tokenBefore = merchant.headers.authorization!.slice("Bearer ".length);

    // 1. Publish: every process trusts each caller's new key too; merchant and webhook open with their new keys too.
    rotateIdentities("publish");
    expect(IDENTITIES.map((name) => identities.keysOf(name))).toEqual(IDENTITIES.map(() => 2));
    await rollout("publish", envOf({ merchant: { SIGNING_KEY_DECRYPTION_KEYS: SIGNING_KEY_ENCRYPTION.next }, webhook: { WEBHOOK_SECRET_DECRYPTION_KEYS: SEALING.next } }));

    // 2. Switch: every process signs with its new key; merchant and webhook seal under their new keys, open with the old.
    rotateIdentities("switch");
    await rollout(
      "switch",
      envOf({
        merchant: { SIGNING_KEY_ENCRYPTION_KEY: SIGNING_KEY_ENCRYPTION.next, SIGNING_KEY_DECRYPTION_KEYS: SIGNING_KEY_ENCRYPTION.old },
        webhook: { WEBHOOK_SECRET_ENCRYPTION_KEY: SEALING.next, WEBHOOK_SECRET_DECRYPTION_KEYS: SEALING.old },
      }),
    );
    // The gateway's token signing key, sealed under the new encryption key: tokens of both keys work on both gateways.
    // Every merchant replica signs with the new key within 5 s (deploy/README.md); tokens of the old one stay valid.
    const { kid } = await createAdminClient(merchantAdminUrl()).rotateSigningKey({});
    const rotated = performance.now();
    let tokenAfter = await newClientToken();
    while (decodeProtectedHeader(tokenAfter).kid !== kid && performance.now() - rotated < 15_000) tokenAfter = await newClientToken();
    expect(decodeProtectedHeader(tokenAfter).kid).toBe(kid);
    expect(decodeProtectedHeader(tokenBefore).kid).not.toBe(kid);
    for (const base of mesh.gatewayUrls) {
      for (const token of [tokenBefore, tokenAfter]) expect((await asClient(token, `/v2/external/shipments/${ledger.created[0]!.id}`)(base, 0)).status).toBe(200);
    }
    // The re-seal moves every webhook secret under the new sealing key before the old one leaves.
    const resealed = performance.now();
    const webhooks = mesh.processes.filter((p) => p.replicaOf === "webhook");
    while ((await Promise.all(webhooks.map((p) => metric(p.metricsUrl, "webhook_secrets_sealed_under_other_keys")))).some((left) => left !== 0)) {
      if (performance.now() - resealed > 30_000) throw new Error("webhook secrets still sealed under the old key after 30 s");
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    // 3. Retire: each caller's old key is trusted no more; the old encryption and sealing keys leave.
    rotateIdentities("retire");
    expect(IDENTITIES.map((name) => identities.keysOf(name))).toEqual(IDENTITIES.map(() => 1));
    await rollout("retire", envOf({ merchant: { SIGNING_KEY_ENCRYPTION_KEY: SIGNING_KEY_ENCRYPTION.next, SIGNING_KEY_DECRYPTION_KEYS: "" }, webhook: { WEBHOOK_SECRET_ENCRYPTION_KEY: SEALING.next, WEBHOOK_SECRET_DECRYPTION_KEYS: "" } }));

    await load.stop();
    const answered = load.count(() => true);
    const refused = load.count((status) => status === "401" || status === "403" || status.startsWith("5"));
    console.log(`[replicas] load: ${answered} requests, ${ledger.created.length} shipments created; answers by route and status: ${JSON.stringify(load.answers)}`);
    if (load.unexpected.length) console.log(`[replicas] unexpected answers:\n  ${load.unexpected.join("\n  ")}`);
    const callersRefused = linesOf(testMesh.logDir, '"caller refused"');
    expect(callersRefused, callersRefused.slice(0, 5).join("\n")).toEqual([]);
    expect(refused).toBe(0);
    expect(load.count((status) => status === "no answer")).toBe(0);
    expect(load.unexpected).toEqual([]);

    // Every shipment's webhook arrives, its secret opened under whichever key sealed it then.
    const deadline = performance.now() + 30_000;
    let missing = webhookEffects(merchant, [receiver], ledger, () => 0).missingCreated;
    while (missing.length > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      missing = webhookEffects(merchant, [receiver], ledger, () => 0).missingCreated;
    }
    expect(missing).toEqual([]);
  });
});

/**
 * A rollout of every Deployment at once, as `kubectl rollout restart` of each does: each replaces
 * its first replica with one started from `envOf(its name)`, then its second, the other serving
 * meanwhile. A gateway replica leaves the ingress before it stops and returns once ready.
 */
async function rollout(phase: string, envOf: (name: string) => Record<string, string>): Promise<void> {
  const started = performance.now();
  for (const replica of [0, 1]) {
    await Promise.all(
      ["gateway", ...SERVICES].map(async (name) => {
        const p = mesh.processes.filter((q) => q.replicaOf === name)[replica]!;
        const gatewayUrl = name === "gateway" ? p.url : undefined;
        if (gatewayUrl) await load.remove(gatewayUrl);
        await mesh.restart(p.name, envOf(name));
        if (gatewayUrl) load.add(gatewayUrl);
      }),
    );
  }
  console.log(`[replicas] ${phase}: rollout of 14 processes in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** A gauge or counter's value (its unlabelled series) on a process's /metrics. */
async function metric(metricsUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.slice(name.length + 1));
}

/** Lines of every process's log (every run of it: a restarted process appends) that contain `text`. */
function linesOf(logDir: string, text: string): string[] {
  return readdirSync(logDir)
    .filter((file) => file.endsWith(".log"))
    .flatMap((file) => readFileSync(path.join(logDir, file), "utf8").split("\n").filter((line) => line.includes(text)).map((line) => `${file}: ${line}`));
}
