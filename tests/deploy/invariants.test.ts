/**
 * The rendered base, sandbox and production (real kustomize) are valid objects of their APIs and
 * keep the rules of invariants.ts; and each rule, and the schema check, is shown failing on an
 * object broken on purpose, so none of them can pass vacuously.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { find, ofKind, podSpec } from "./facts";
import { type Environment, RULE_NAMES, quantity, violations } from "./invariants";
import { DEPLOY, render } from "./kustomize";
import type { Container, Manifest } from "./manifest-types";
import { schemaError } from "./schemas";

const DIRS: Record<Environment, string> = { base: "base", sandbox: "overlays/sandbox", production: "overlays/production" };
const rendered = (env: Environment) => render(path.join(DEPLOY, DIRS[env]));

describe.each(Object.keys(DIRS) as Environment[])("%s, rendered by kubectl kustomize", (env) => {
  const manifests = rendered(env);

  it("holds workloads, monitoring and topics", () => {
    for (const kind of ["Deployment", "Job", "PodMonitor", "PrometheusRule", "KafkaTopic", "ConfigMap"]) expect(ofKind(manifests, kind).length, kind).toBeGreaterThan(0);
  });

  it.each(manifests.map((m) => [`${m.kind}/${m.metadata.name}`, m] as const))("%s is valid against its API's schema", (_, m) => {
    expect(schemaError(m)).toBeUndefined();
  });

  it("keeps every invariant", () => {
    expect(violations(manifests, env)).toEqual([]);
  });
});

/** Production, with one object changed by `breakIt`: the rule `rule` must report it. */
function brokenProduction(breakIt: (ms: Manifest[]) => void): Manifest[] {
  const manifests = rendered("production");
  breakIt(manifests);
  return manifests;
}
const gatewayPod = (ms: Manifest[]) => podSpec(find(ms, "Deployment", "gateway")) as ReturnType<typeof podSpec> & Record<string, unknown>;
const gatewayContainer = (ms: Manifest[]) => gatewayPod(ms).containers[0] as Container;

describe("each invariant fails on a broken object", () => {
  const cases: [rule: string, breakIt: (ms: Manifest[]) => void][] = [
    ["no-host-namespaces", (ms) => { gatewayPod(ms).hostNetwork = true; }],
    ["topology-spread", (ms) => { delete gatewayPod(ms).topologySpreadConstraints; }],
    ["topology-spread", (ms) => {
      for (const c of gatewayPod(ms).topologySpreadConstraints as { whenUnsatisfiable: string }[]) c.whenUnsatisfiable = "ScheduleAnyway";
    }],
    ["topology-spread", (ms) => {
      for (const c of gatewayPod(ms).topologySpreadConstraints as { nodeTaintsPolicy?: string }[]) delete c.nodeTaintsPolicy;
    }],
    // Only a Deployment fixed at one pod is spared: two fixed replicas must spread like any.
    ["topology-spread", (ms) => {
      delete gatewayPod(ms).topologySpreadConstraints;
      (find(ms, "Deployment", "gateway").spec as { replicas?: number }).replicas = 2;
    }],
    ["requests-within-limits", (ms) => { (gatewayContainer(ms).resources as { requests: Record<string, string> }).requests.memory = "1Gi"; }],
    ["probe-timeouts", (ms) => { (gatewayContainer(ms).readinessProbe ?? {}).timeoutSeconds = 1; }],
    ["probe-timeouts", (ms) => { delete (gatewayContainer(ms).startupProbe ?? {}).timeoutSeconds; }],
    ["production-topic-partitions", (ms) => { (ofKind(ms, "KafkaTopic")[0]?.spec as { partitions: number }).partitions = 1; }],
    ["production-one-pod-down", (ms) => {
      (find(ms, "PodDisruptionBudget", "gateway").spec as Record<string, unknown>).maxUnavailable = 2;
    }],
    ["production-one-pod-down", (ms) => {
      const spec = find(ms, "PodDisruptionBudget", "gateway").spec as Record<string, unknown>;
      delete spec.maxUnavailable;
      spec.minAvailable = 1;
    }],
  ];

  it.each(cases)("%s", (rule, breakIt) => {
    const found = violations(brokenProduction(breakIt), "production");
    expect(found.map((v) => v.rule)).toEqual([rule]);
  });

  it("covers every rule", () => {
    expect([...new Set(cases.map(([rule]) => rule))].sort()).toEqual([...RULE_NAMES].sort());
  });

  it("a single-partition topic is allowed outside production only", () => {
    const sandbox = rendered("sandbox");
    (ofKind(sandbox, "KafkaTopic")[0]?.spec as { partitions: number }).partitions = 1;
    expect(violations(sandbox, "sandbox")).toEqual([]);
  });

  it("reads Kubernetes quantities as the API server does", () => {
    expect([quantity("512Mi"), quantity("1Gi"), quantity("100m"), quantity("1"), quantity("2k")]).toEqual([512 * 2 ** 20, 2 ** 30, 0.1, 1, 2000]);
    expect(() => quantity("12Zi")).toThrow();
  });
});

describe("the schema check fails on a broken object", () => {
  const cases: [what: string, breakIt: (ms: Manifest[]) => Manifest][] = [
    ["a Deployment with a malformed memory limit", (ms) => {
      (gatewayContainer(ms).resources as { limits: Record<string, string> }).limits.memory = "lots";
      return find(ms, "Deployment", "gateway");
    }],
    ["a Deployment whose hostNetwork is not a boolean", (ms) => {
      gatewayPod(ms).hostNetwork = "yes";
      return find(ms, "Deployment", "gateway");
    }],
    ["a KafkaTopic with no partitions", (ms) => {
      const topic = ofKind(ms, "KafkaTopic")[0] as Manifest;
      (topic.spec as { partitions: number }).partitions = 0;
      return topic;
    }],
    ["a KafkaTopic with a field Strimzi does not know", (ms) => {
      const topic = ofKind(ms, "KafkaTopic")[0] as Manifest;
      (topic.spec as Record<string, unknown>).replicationFactor = 3;
      return topic;
    }],
    ["a PodMonitor whose port is a number", (ms) => {
      const monitor = find(ms, "PodMonitor", "gateway");
      ((monitor.spec as { podMetricsEndpoints: { port: unknown }[] }).podMetricsEndpoints[0] as { port: unknown }).port = 8080;
      return monitor;
    }],
    ["an object of a kind with no schema", () => ({ apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "x" } })],
  ];

  it.each(cases)("%s", (_, breakIt) => {
    expect(schemaError(breakIt(rendered("production")))).toEqual(expect.any(String));
  });
});
