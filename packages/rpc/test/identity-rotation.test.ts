/**
 * A caller's service-identity key rotated under load, as deploy/README.md's procedure does it:
 * two replicas of a callee (real servers on loopback addresses, one port, one name resolving to the
 * running ones) and two replicas of the caller calling without pause, every process started from
 * its settings as a pod is (the Secret's private key, the ConfigMap's public keys), and each
 * phase's rollout replacing one replica at a time as a Deployment does: the new pod starts on an
 * address of its own, the old one leaves the name, then drains. No call may be refused.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { commonEnv, loadConfig } from "@tawsil/config";
import { createLogger } from "@tawsil/logging";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { afterEach, describe, expect, it } from "vitest";
import {
  CallerPolicy, callersOf, createMetrics, createPeerClient, generateIdentityKeys, processIdentity, publicKeysSetting, Readiness, startRpcServer, type RpcServer,
} from "../src/index";

const logger = createLogger({ service: "test", level: "silent" });
const POLICY = new CallerPolicy([callersOf(PricingService, { quoteDelivery: ["gateway"] })]);
const keys = generateIdentityKeys(["gateway", "pricing"]);
const next = generateIdentityKeys(["gateway"]).gateway!;

/** The ConfigMap's SERVICE_IDENTITY_PUBLIC_KEYS at each step of the rotation. */
const BEFORE = publicKeysSetting(keys);
const PUBLISHED = `${BEFORE},gateway:${next.publicKey}`;
const RETIRED = publicKeysSetting({ ...keys, gateway: next });

const servers = new Set<RpcServer>();
afterEach(async () => {
  await Promise.all([...servers].map((s) => s.close(100)));
  servers.clear();
});

/** A pricing pod started from its settings: its own key, and the public keys the ConfigMap held when it started. */
async function calleePod(host: string, port: number, publicKeys: string): Promise<RpcServer> {
  const config = loadConfig(commonEnv, { NODE_ENV: "production", PORT: "0", SERVICE_IDENTITY_PRIVATE_KEY: keys.pricing!.privateKey, SERVICE_IDENTITY_PUBLIC_KEYS: publicKeys });
  const server = await startRpcServer({
    host,
    port,
    logger,
    metrics: createMetrics("pricing"),
    readiness: new Readiness([], logger),
    routes: (router) => router.service(PricingService, { quoteDelivery: async () => ({}) }),
    callers: processIdentity("pricing", config, logger, POLICY).callers,
  });
  servers.add(server);
  return server;
}

/** Every answer the caller's replicas got, by code. */
type Answers = Record<string, number>;

/** A gateway pod started from its Secret's private key, calling pricing without pause (4 calls at a time) until stopped. */
function callerPod(port: number, privateKey: string, answers: Answers, addresses: () => string[]) {
  const config = loadConfig(commonEnv, { NODE_ENV: "production", PORT: "0", SERVICE_IDENTITY_PRIVATE_KEY: privateKey });
  const client = createPeerClient(PricingService, `http://pricing.test:${port}`, {
    identity: processIdentity("gateway", config, logger).self,
    // Far above a stopping replica's grace, so a loaded machine fails no call by its deadline.
    timeoutMs: 8000,
    lookup: async () => addresses(),
    // A headless Service's records follow its ready pods; kube-dns's 5 s, shortened to the test's pace.
    resolveEveryMs: 100,
  });
  let stopped = false;
  const worker = async () => {
    while (!stopped) {
      const code = await client.quoteDelivery({}).then(() => "ok", (e: unknown) => Code[ConnectError.from(e).code]);
      answers[code] = (answers[code] ?? 0) + 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const running = Promise.all(Array.from({ length: 4 }, worker));
  return {
    /** Like a pod's SIGTERM: no new call, the ones in flight finish. */
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("rotating a caller's identity key under load", () => {
  it("publishes, switches and retires with two replicas of each side rolling one at a time, and no call is refused", async () => {
    const answers: Answers = {};
    const first = await calleePod("127.0.0.1", 0, BEFORE);
    const port = first.port;
    /** The callee's running pods, by address: what its headless Service's name resolves to. */
    const callees = new Map<string, RpcServer>([["127.0.0.1", first], ["127.0.0.2", await calleePod("127.0.0.2", port, BEFORE)]]);
    const resolve = () => [...callees.keys()];
    let nextAddress = 3;
    const callers = [callerPod(port, keys.gateway!.privateKey, answers, resolve), callerPod(port, keys.gateway!.privateKey, answers, resolve)];

    /** A callee Deployment's rollout (maxSurge 1): a pod with the ConfigMap as it now is starts on a new address; an old one leaves the name, then drains. */
    const rollCallees = async (publicKeys: string) => {
      for (const [address, old] of [...callees]) {
        const fresh = `127.0.0.${nextAddress++}`;
        callees.set(fresh, await calleePod(fresh, port, publicKeys));
        callees.delete(address);
        await pause(300); // the endpoints controller and the callers' resolution catch up (a pod's preStop wait)
        await old.close(1000);
        servers.delete(old);
      }
    };
    /** The caller's rollout (maxSurge 1): a new pod with the Secret's key starts, then an old one stops. */
    const rollCallers = async (privateKey: string) => {
      for (const [i, old] of callers.entries()) {
        callers[i] = callerPod(port, privateKey, answers, resolve);
        await pause(100);
        await old.stop();
        await pause(150);
      }
    };

    const total = () => Object.values(answers).reduce((a, b) => a + b, 0);
    /** Calls answered during each phase: the load must not have stalled through any of them. */
    const perPhase: Record<string, number> = {};
    const phase = async (name: string, run: () => Promise<void>) => {
      const before = total();
      await run();
      perPhase[name] = total() - before;
    };

    await phase("before", () => pause(300));
    // 1. publish: the new public key beside the old; every Deployment restarts.
    await phase("publish", async () => {
      await rollCallees(PUBLISHED);
      await rollCallers(keys.gateway!.privateKey);
    });
    // 2. switch: the caller's Secret holds the new private key; its Deployment alone restarts.
    await phase("switch", () => rollCallers(next.privateKey));
    // 3. retire: the old public key leaves the ConfigMap; every Deployment restarts.
    await phase("retire", async () => {
      await rollCallees(RETIRED);
      await rollCallers(next.privateKey);
    });
    await phase("after", () => pause(300));
    await Promise.all(callers.map((c) => c.stop()));

    const calls = total();
    console.info(`identity rotation under load: ${calls} calls (per phase ${JSON.stringify(perPhase)}), answers ${JSON.stringify(answers)}`);
    expect(answers.Unauthenticated ?? 0).toBe(0);
    expect(answers).toEqual({ ok: calls });
    for (const name of ["publish", "switch", "retire"]) expect(perPhase[name], name).toBeGreaterThan(20);

    // The old key is no longer trusted anywhere: a pod still holding it would be refused.
    const stale: Answers = {};
    const leftover = callerPod(port, keys.gateway!.privateKey, stale, resolve);
    await pause(200);
    await leftover.stop();
    expect(Object.keys(stale)).toEqual(["Unauthenticated"]);
  });
});
