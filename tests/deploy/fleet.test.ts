/**
 * The sandbox fleet (decisions.md section 17) is the sandbox's alone: both overlays rendered by
 * the real kustomize, the sandbox's holds the fleet and opens it exactly what it drives and
 * manages its drivers through; production renders nothing of it, and keeps every admin listener
 * out of every pod's reach, a pod that looks like the fleet's included.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FLEET } from "../../packages/topology/src";
import { adminPeersOf, find, ofKind, workload } from "./facts";
import { DEPLOY, readKustomization, render } from "./kustomize";
import type { Manifest } from "./manifest-types";
import { allowed, type Endpoint } from "./network-model";

const sandbox = render(path.join(DEPLOY, "overlays", "sandbox"));
const production = render(path.join(DEPLOY, "overlays", "production"));
const fleetLabels = workload(find(sandbox, "Deployment", FLEET)).template.metadata.labels;
const pod = (namespace: string, labels: Record<string, string>): Endpoint => ({ kind: "pod", namespace, labels, ip: "10.244.1.7" });
const serverPod = (ms: readonly Manifest[], name: string) => {
  const deployment = find(ms, "Deployment", name);
  return pod(deployment.metadata.namespace ?? "", workload(deployment).template.metadata.labels);
};
const configOf = (ms: readonly Manifest[], name: string) => find(ms, "ConfigMap", `${name}-config`).data ?? {};
const portOf = (ms: readonly Manifest[], name: string) => workload(find(ms, "Deployment", name)).template.spec.containers[0]?.ports?.[0]?.containerPort ?? -1;
/** Every admin listener of a rendered environment: the services whose ConfigMap sets ADMIN_PORT. */
const adminListeners = (ms: readonly Manifest[]) =>
  ofKind(ms, "ConfigMap").flatMap((cm) => (cm.data?.ADMIN_PORT ? [{ name: cm.metadata.name.replace(/-config$/, ""), port: Number(cm.data.ADMIN_PORT) }] : []));

describe("the sandbox overlay", () => {
  const policies = ofKind(sandbox, "NetworkPolicy");
  const fleet = serverPod(sandbox, FLEET);
  const managed = adminPeersOf(FLEET);

  it("runs the fleet: its Deployment (one pod), settings, scrape, alert, network policy and pinned image", () => {
    expect(workload(find(sandbox, "Deployment", FLEET))).toMatchObject({ replicas: 1, strategy: { type: "Recreate" } });
    for (const [kind, name] of [["ServiceAccount", FLEET], ["ConfigMap", `${FLEET}-config`], ["PodMonitor", FLEET], ["PrometheusRule", `${FLEET}-alerts`], ["NetworkPolicy", FLEET]]) {
      expect(find(sandbox, kind as string, name as string).metadata.namespace).toBe("tawsil-sandbox");
    }
    expect(configOf(sandbox, FLEET).TAWSIL_ENVIRONMENT).toBe("sandbox");
    expect(readKustomization(path.join(DEPLOY, "overlays", "sandbox")).images?.map((image) => image.name)).toContain(`ghcr.io/tawsil/${FLEET}`);
  });

  it("manages its drivers through the admin listeners of dispatch, merchant and shipment", () => {
    expect([...managed].sort()).toEqual(["dispatch", "merchant", "shipment"]);
  });

  it("lets the fleet reach the gateway's port and those admin ports, and nothing else", () => {
    expect(allowed(policies, { from: fleet, to: serverPod(sandbox, "gateway"), port: portOf(sandbox, "gateway") })).toBe(true);
    for (const { name, port } of adminListeners(sandbox)) {
      expect(allowed(policies, { from: fleet, to: serverPod(sandbox, name), port }), `${name}:${port}`).toBe(managed.includes(name as never));
      expect(allowed(policies, { from: fleet, to: serverPod(sandbox, name), port: portOf(sandbox, name) }), `${name}'s service port`).toBe(false);
    }
    for (const to of [{ kind: "external", ip: "203.0.113.10" }, { kind: "external", ip: "10.50.0.5" }] as const) {
      for (const port of [443, 5432, 9092]) expect(allowed(policies, { from: fleet, to, port }), `${to.ip}:${port}`).toBe(false);
    }
  });

  it("has those three listen on the pod's address, and admits no other pod to them", () => {
    const others = ofKind(sandbox, "Deployment").filter((d) => d.metadata.name !== FLEET).map((d) => serverPod(sandbox, d.metadata.name));
    for (const { name, port } of adminListeners(sandbox)) {
      expect(configOf(sandbox, name).ADMIN_HOST ?? "127.0.0.1", name).toBe(managed.includes(name as never) ? "0.0.0.0" : "127.0.0.1");
      for (const from of [...others, pod("tawsil-sandbox", { app: "debug" }), pod("monitoring", { "app.kubernetes.io/name": "prometheus" })]) {
        expect(allowed(policies, { from, to: serverPod(sandbox, name), port }), `${JSON.stringify(from)} -> ${name}:${port}`).toBe(false);
      }
    }
  });
});

describe("the production overlay", () => {
  const policies = ofKind(production, "NetworkPolicy");

  it("renders nothing named, labelled, selected or configured as the fleet", () => {
    expect(production.length).toBeGreaterThan(0);
    expect(production.filter((m) => JSON.stringify(m).includes(FLEET)).map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([]);
    expect(readKustomization(path.join(DEPLOY, "overlays", "production")).images?.map((image) => image.name)).not.toContain(`ghcr.io/tawsil/${FLEET}`);
  });

  it("keeps every admin listener on loopback and admits no pod to an admin port, one labelled as the fleet's included", () => {
    const listeners = adminListeners(production);
    expect(listeners.map((l) => l.name).sort()).toEqual(["dispatch", "merchant", "shipment", "tracking", "webhook"]);
    const fleetLookalike = pod("tawsil-production", fleetLabels);
    const everyProcess = ofKind(production, "Deployment").map((d) => serverPod(production, d.metadata.name));
    for (const { name, port } of listeners) {
      expect(configOf(production, name).ADMIN_HOST, name).toBeUndefined();
      for (const from of [fleetLookalike, ...everyProcess]) {
        expect(allowed(policies, { from, to: serverPod(production, name), port }), `${from.kind === "pod" ? from.labels["app.kubernetes.io/name"] : ""} -> ${name}:${port}`).toBe(false);
      }
    }
    // No policy names the fleet's pods at all, in a from or anywhere else.
    expect(policies.filter((p) => JSON.stringify(p.spec).includes(fleetLabels["app.kubernetes.io/name"] ?? FLEET)).map((p) => p.metadata.name)).toEqual([]);
  });
});
