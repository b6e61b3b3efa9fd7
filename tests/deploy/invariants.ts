/**
 * Rules every rendered environment must keep, as functions of the objects themselves so that
 * invariants.test.ts can show each one failing on a deliberately broken object. Each returns the
 * violations it finds; an empty list means the rule holds.
 */
import { podContainers } from "./kustomize";
import type { Manifest, PodSpec, Probe, WorkloadSpec } from "./manifest-types";

export type Environment = "base" | "sandbox" | "production";
export interface Violation { rule: string; object: string; detail: string }

interface SpreadConstraint { topologyKey: string; whenUnsatisfiable: string; nodeTaintsPolicy?: string; labelSelector?: { matchLabels?: Record<string, string> } }
type PodSpecWithHost = PodSpec & { hostNetwork?: boolean; hostPID?: boolean; hostIPC?: boolean; topologySpreadConstraints?: SpreadConstraint[] };

/** Kubernetes' smallest probe timeout we allow: a 1 s default fails healthy pods on a busy node. */
export const MIN_PROBE_TIMEOUT_SECONDS = 2;

const id = (m: Manifest) => `${m.kind}/${m.metadata.name}`;
const workloads = (ms: readonly Manifest[]) => ms.filter((m) => m.kind === "Deployment" || m.kind === "Job");
const podOf = (m: Manifest) => (m.spec as WorkloadSpec).template.spec as PodSpecWithHost;

const SUFFIXES: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12, m: 1e-3, "": 1 };
/** A Kubernetes quantity ("512Mi", "1", "100m", "1e3") as a number; throws on anything else. */
export function quantity(value: string | number): number {
  const match = /^([0-9.]+(?:e[0-9]+)?)(Ki|Mi|Gi|Ti|k|M|G|T|m)?$/.exec(String(value));
  if (!match) throw new Error(`not a quantity: ${value}`);
  return Number(match[1]) * (SUFFIXES[match[2] ?? ""] ?? Number.NaN);
}

const RULES: Record<string, (ms: readonly Manifest[], env: Environment) => Violation[]> = {
  "no-host-namespaces": (ms) =>
    workloads(ms).flatMap((m) =>
      (["hostNetwork", "hostPID", "hostIPC"] as const).filter((field) => podOf(m)[field] === true)
        .map((field) => ({ rule: "no-host-namespaces", object: id(m), detail: `${field}: true` }))),

  "topology-spread": (ms, env) =>
    // A Deployment fixed at one pod (the sandbox fleet) has nothing to spread; the HPA-scaled ones
    // carry no replicas field.
    ms.filter((m) => m.kind === "Deployment" && (m.spec as WorkloadSpec).replicas !== 1).flatMap((m) => {
      const labels = (m.spec as WorkloadSpec).template.metadata.labels;
      const selects = (c: SpreadConstraint) => Object.entries(c.labelSelector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v) && Object.keys(c.labelSelector?.matchLabels ?? {}).length > 0;
      const byNode = (podOf(m).topologySpreadConstraints ?? []).filter((c) => c.topologyKey === "kubernetes.io/hostname" && selects(c));
      if (byNode.length === 0) return [{ rule: "topology-spread", object: id(m), detail: "no topology spread across nodes that selects its own pods" }];
      // Production runs two replicas at least: both on one node would make that node an outage.
      if (env === "production" && !byNode.some((c) => c.whenUnsatisfiable === "DoNotSchedule")) {
        return [{ rule: "topology-spread", object: id(m), detail: "spread across nodes is only preferred (ScheduleAnyway)" }];
      }
      // A hard spread that counts cordoned or tainted nodes as domains leaves a drained pod Pending.
      if (byNode.some((c) => c.whenUnsatisfiable === "DoNotSchedule" && c.nodeTaintsPolicy !== "Honor")) {
        return [{ rule: "topology-spread", object: id(m), detail: "hard spread across nodes counts nodes its pods cannot tolerate (nodeTaintsPolicy is not Honor)" }];
      }
      return [];
    }),

  "requests-within-limits": (ms) =>
    workloads(ms).flatMap((m) =>
      podContainers(m).flatMap((c) =>
        (["memory", "cpu"] as const).flatMap((resource) => {
          const request = c.resources?.requests?.[resource];
          const limit = c.resources?.limits?.[resource];
          if (request === undefined || limit === undefined || quantity(request) <= quantity(limit)) return [];
          return [{ rule: "requests-within-limits", object: `${id(m)}/${c.name}`, detail: `${resource} request ${request} above its limit ${limit}` }];
        }))),

  "probe-timeouts": (ms) =>
    workloads(ms).flatMap((m) =>
      podContainers(m).flatMap((c) =>
        (["startupProbe", "livenessProbe", "readinessProbe"] as const).flatMap((kind) => {
          const probe: Probe | undefined = c[kind];
          // Kubernetes defaults timeoutSeconds to 1.
          const timeout = probe ? (probe.timeoutSeconds ?? 1) : undefined;
          return timeout !== undefined && timeout < MIN_PROBE_TIMEOUT_SECONDS
            ? [{ rule: "probe-timeouts", object: `${id(m)}/${c.name}`, detail: `${kind} timeoutSeconds ${timeout} under ${MIN_PROBE_TIMEOUT_SECONDS}` }]
            : [];
        }))),

  "production-topic-partitions": (ms, env) =>
    env !== "production" ? [] : ms.filter((m) => m.kind === "KafkaTopic").flatMap((m) => {
      const partitions = (m.spec as { partitions?: number }).partitions ?? 1;
      // One partition is one consumer at a time and no parallelism to scale into.
      return partitions > 1 ? [] : [{ rule: "production-topic-partitions", object: id(m), detail: `${partitions} partition(s)` }];
    }),

  "production-one-pod-down": (ms, env) =>
    env !== "production" ? [] : ms.filter((m) => m.kind === "PodDisruptionBudget").flatMap((m) => {
      const spec = m.spec as { maxUnavailable?: number | string; minAvailable?: number | string };
      return spec.maxUnavailable === 1 && spec.minAvailable === undefined ? [] : [{ rule: "production-one-pod-down", object: id(m), detail: `maxUnavailable ${spec.maxUnavailable}, minAvailable ${spec.minAvailable}` }];
    }),
};

export const RULE_NAMES = Object.keys(RULES);

export function violations(manifests: readonly Manifest[], env: Environment): Violation[] {
  return Object.values(RULES).flatMap((rule) => rule(manifests, env));
}
