/**
 * NetworkPolicy semantics, small enough to read: a connection is allowed when the source's
 * egress and the destination's ingress both allow it. A direction of a pod that no policy selects
 * is open; once one does, only the union of their rules is allowed. Pod IPs count for ipBlocks,
 * as on Calico and Cilium. Anything this model does not implement (matchExpressions other than
 * In, port ranges, named ports) throws rather than being guessed.
 */
import type { LabelSelector, Manifest, NetworkPeer, NetworkPolicySpec, NetworkRule } from "./manifest-types";

export type Endpoint =
  | { kind: "pod"; namespace: string; labels: Record<string, string>; ip: string }
  | { kind: "external"; ip: string };

export interface Connection {
  from: Endpoint;
  to: Endpoint;
  port: number;
  protocol?: "TCP" | "UDP";
}

export function allowed(policies: readonly Manifest[], c: Connection): boolean {
  const protocol = c.protocol ?? "TCP";
  const egressOk = c.from.kind === "external" || directionAllows(policies, c.from, "Egress", c.to, c.port, protocol);
  const ingressOk = c.to.kind === "external" || directionAllows(policies, c.to, "Ingress", c.from, c.port, protocol);
  return egressOk && ingressOk;
}

type Pod = Endpoint & { kind: "pod" };

function directionAllows(policies: readonly Manifest[], pod: Pod, type: "Ingress" | "Egress", peer: Endpoint, port: number, protocol: string): boolean {
  const selecting = policies
    .filter((p) => p.metadata.namespace === pod.namespace)
    .map((p) => p.spec as NetworkPolicySpec)
    .filter((spec) => (spec.policyTypes ?? ["Ingress"]).includes(type) && selects(spec.podSelector, pod.labels));
  if (selecting.length === 0) return true;
  return selecting.some((spec) =>
    (type === "Ingress" ? spec.ingress : spec.egress)?.some((rule) => ruleAllows(rule, type, pod.namespace, peer, port, protocol)) ?? false,
  );
}

function ruleAllows(rule: NetworkRule, type: "Ingress" | "Egress", namespace: string, peer: Endpoint, port: number, protocol: string): boolean {
  const peers = type === "Ingress" ? rule.from : rule.to;
  const peerOk = peers === undefined || peers.some((p) => peerMatches(p, namespace, peer));
  const portOk =
    rule.ports === undefined ||
    rule.ports.some((p) => {
      if (typeof p.port === "string") throw new Error("named ports are not modelled");
      return (p.protocol ?? "TCP") === protocol && (p.port === undefined || p.port === port);
    });
  return peerOk && portOk;
}

function peerMatches(p: NetworkPeer, policyNamespace: string, peer: Endpoint): boolean {
  if (p.ipBlock) {
    if (p.ipBlock.cidr.includes(":")) return false; // the model's addresses are IPv4
    return inCidr(peer.ip, p.ipBlock.cidr) && !(p.ipBlock.except ?? []).some((cidr) => inCidr(peer.ip, cidr));
  }
  if (peer.kind !== "pod") return false;
  const namespaceOk = p.namespaceSelector
    ? selects(p.namespaceSelector, { "kubernetes.io/metadata.name": peer.namespace })
    : peer.namespace === policyNamespace;
  return namespaceOk && (p.podSelector === undefined || selects(p.podSelector, peer.labels));
}

function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const expressionsOk = (selector.matchExpressions ?? []).every((e) => {
    if (e.operator !== "In") throw new Error(`matchExpressions with ${e.operator} are not modelled`);
    return labels[e.key] !== undefined && (e.values ?? []).includes(labels[e.key] as string);
  });
  return expressionsOk && Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

function inCidr(ip: string, cidr: string): boolean {
  const [base = "", bits = "32"] = cidr.split("/");
  const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
  return ((toInt(ip) & mask) >>> 0) === ((toInt(base) & mask) >>> 0);
}

function toInt(ip: string): number {
  return ip.split(".").reduce((acc, octet) => ((acc << 8) | Number(octet)) >>> 0, 0);
}
