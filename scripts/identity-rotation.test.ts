import { commonEnv, loadConfig } from "../packages/config/src/index";
import { describe, expect, it } from "vitest";
import { CallerVerifier, ServiceIdentity } from "../packages/rpc/src/index";
import { identityManifests, rolloutAfter } from "./identity-keys";
import { identityObjectsOf, keysPerCaller, NEXT_PRIVATE_KEY, PRIVATE_KEY, PUBLIC_KEYS, rotate, type IdentityObjects, type KubeObject } from "../packages/rpc/src/identity-rotation";

/** The objects as `kubectl get -o json` shows them once identity-keys.ts's output is applied (stringData stored as data). */
function asStored(name: string): IdentityObjects {
  const docs = identityManifests().split("\n---\n").map((doc) => JSON.parse(doc) as KubeObject & { stringData?: Record<string, string> });
  const items = docs.map(({ stringData, ...doc }) => ({
    ...doc,
    metadata: { ...doc.metadata, namespace: "tawsil-sandbox", resourceVersion: "41" },
    ...(stringData ? { data: Object.fromEntries(Object.entries(stringData).map(([k, v]) => [k, Buffer.from(v).toString("base64")])) } : {}),
  }));
  return identityObjectsOf(name, { kind: "List", items } as { items: KubeObject[] });
}

/** What `kubectl replace` leaves: the replaced objects in place of the old ones. */
function replaced(objects: IdentityObjects, changed: readonly KubeObject[]): IdentityObjects {
  return {
    secret: changed.find((o) => o.kind === "Secret") ?? objects.secret,
    configMap: changed.find((o) => o.kind === "ConfigMap") ?? objects.configMap,
  };
}

const privateKeyIn = (objects: IdentityObjects) => Buffer.from(objects.secret.data![PRIVATE_KEY]!, "base64").toString("utf8");

/** Whether a pod started from `signer`'s Secret is admitted by a callee pod started from `callee`'s ConfigMap. */
async function admitted(signer: IdentityObjects, callee: IdentityObjects): Promise<boolean> {
  const config = loadConfig(commonEnv, { PORT: "0", SERVICE_IDENTITY_PRIVATE_KEY: privateKeyIn(signer), SERVICE_IDENTITY_PUBLIC_KEYS: callee.configMap.data![PUBLIC_KEYS]! });
  const token = await new ServiceIdentity("gateway", config.SERVICE_IDENTITY_PRIVATE_KEY!).sign("shipment");
  return (await new CallerVerifier("shipment", config.SERVICE_IDENTITY_PUBLIC_KEYS!).verify(token)) === "gateway";
}

describe("rotating a service-identity key in three phases", () => {
  it("admits every pod of the caller at every pod of every callee, whichever of each phase's pods a rollout has restarted", async () => {
    const start = asStored("gateway");
    const published = replaced(start, rotate("publish", "gateway", start));
    const switched = replaced(published, rotate("switch", "gateway", published));
    const retired = replaced(switched, rotate("retire", "gateway", switched));

    // publish restarts every Deployment: the caller still signs with the old key, callees old and new trust it.
    for (const callee of [start, published]) for (const signer of [start, published]) expect(await admitted(signer, callee)).toBe(true);
    // switch restarts the caller: its old pods and its new ones, at callees that trust both keys.
    for (const signer of [published, switched]) expect(await admitted(signer, switched)).toBe(true);
    // retire restarts every Deployment: the caller signs with the new key only, callees old and new trust it.
    for (const callee of [switched, retired]) for (const signer of [switched, retired]) expect(await admitted(signer, callee)).toBe(true);

    // The old key is gone for good, the new one alone is trusted, and the waiting key has left the Secret.
    expect(await admitted(start, retired)).toBe(false);
    expect(privateKeyIn(retired)).not.toBe(privateKeyIn(start));
    expect(Object.keys(retired.secret.data!)).toEqual([PRIVATE_KEY]);
    expect(keysPerCaller(published.configMap).gateway).toBe(2);
    expect(keysPerCaller(retired.configMap)).toEqual(keysPerCaller(start.configMap));
    // Every other caller's key is untouched.
    const others = (o: IdentityObjects) => o.configMap.data![PUBLIC_KEYS]!.split(",").filter((e) => !e.startsWith("gateway:"));
    expect(others(retired)).toEqual(others(start));
  });

  it("keeps the key publish made when publish runs again, and refuses each phase out of order", () => {
    const start = asStored("shipment");
    const published = replaced(start, rotate("publish", "shipment", start));
    const again = replaced(published, rotate("publish", "shipment", published));
    expect(again.secret.data![NEXT_PRIVATE_KEY]).toBe(published.secret.data![NEXT_PRIVATE_KEY]);
    expect(again.configMap.data![PUBLIC_KEYS]).toBe(published.configMap.data![PUBLIC_KEYS]);

    expect(() => rotate("switch", "shipment", start)).toThrow(/run publish first/);
    expect(() => rotate("switch", "shipment", { ...published, configMap: start.configMap })).toThrow(/not in ConfigMap service-identity/);
    expect(() => rotate("retire", "shipment", published)).toThrow(/run switch/);
    const switched = replaced(published, rotate("switch", "shipment", published));
    expect(() => rotate("retire", "shipment", { ...switched, configMap: start.configMap })).toThrow(/retiring would refuse every call/);
  });

  it("writes back only what it read, for kubectl replace: resourceVersion kept, last-applied and managed fields dropped", () => {
    const start = asStored("webhook");
    const withHistory = { ...start, secret: { ...start.secret, metadata: { ...start.secret.metadata, annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{...}" }, managedFields: [] } } };
    const [secret, configMap] = rotate("publish", "webhook", withHistory as IdentityObjects);
    expect(secret!.metadata).toEqual({ name: "webhook-identity", namespace: "tawsil-sandbox", resourceVersion: "41", labels: start.secret.metadata.labels });
    expect(configMap!.metadata.name).toBe("service-identity");
    expect(rolloutAfter("switch", "webhook")).toContain("rollout restart deploy/webhook\n");
    expect(rolloutAfter("publish", "webhook")).toMatch(/rollout restart deploy\/merchant .* deploy\/gateway\n/);
  });
});
