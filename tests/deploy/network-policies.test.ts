/**
 * The network-policies component, evaluated as a cluster would enforce it in each overlay: every
 * connection architecture.md draws is open, on its one port, and everything else is closed. The
 * sandbox's fleet is one more process there, whose calls its config.ts names (the gateway and
 * admin listeners); fleet.test.ts checks what production keeps closed without it.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FLEET } from "../../packages/topology/src";
import { SERVICES_WITH_MIGRATIONS, adminPeersOf, callsOf, configKeys, find, ofKind, processesIn, usesDatabase, usesKafka, workload } from "./facts";
import { DEPLOY, render } from "./kustomize";
import type { NetworkPolicySpec } from "./manifest-types";
import { allowed, type Endpoint } from "./network-model";

const OVERLAYS = [
  { overlay: "sandbox", namespace: "tawsil-sandbox" },
  { overlay: "production", namespace: "tawsil-production" },
] as const;

describe.each(OVERLAYS)("network policies in $overlay", ({ overlay, namespace }) => {
  const processes = processesIn(overlay);
  const manifests = render(path.join(DEPLOY, "overlays", overlay));
  const policies = ofKind(manifests, "NetworkPolicy");
  const pod = (labels: Record<string, string>, ns: string = namespace): Endpoint => ({ kind: "pod", namespace: ns, labels, ip: "10.244.1.7" });
  const external = (ip: string): Endpoint => ({ kind: "external", ip });
  const server = (name: string) => pod(workload(find(manifests, "Deployment", name)).template.metadata.labels);
  const migration = (name: string) => pod(workload(find(manifests, "Job", `${name}-migrate`)).template.metadata.labels);
  const portOf = (name: string) => workload(find(manifests, "Deployment", name)).template.spec.containers[0]?.ports?.[0]?.containerPort ?? -1;
  const metricsPortOf = (name: string) => workload(find(manifests, "Deployment", name)).template.spec.containers[0]?.ports?.find((p) => p.name === "metrics")?.containerPort ?? -1;
  const configOf = (name: string) => find(manifests, "ConfigMap", `${name}-config`).data ?? {};

  const prometheus = pod({ "app.kubernetes.io/name": "prometheus" }, "monitoring");
  const broker = pod({ "strimzi.io/cluster": "tawsil", "strimzi.io/kind": "Kafka" }, "kafka");
  const kubeDns = pod({ "k8s-app": "kube-dns" }, "kube-system");
  const strangers = [pod({ app: "debug" }), pod({ app: "debug" }, "other-team")];
  // The managed servers outside the cluster, at an address inside the range the overlay sets.
  const rangeOf = (policy: string, port: number): string[] =>
    ((find(policies, "NetworkPolicy", policy).spec as NetworkPolicySpec).egress ?? []).filter((r) => r.ports?.some((p) => p.port === port)).flatMap((r) => (r.to ?? []).map((peer) => peer.ipBlock?.cidr ?? "not an ipBlock"));
  const hostIn = (cidr: string): Endpoint => external((cidr.split("/")[0] ?? "").replace(/\.0$/, ".5"));
  const postgresRanges = rangeOf("postgres-egress", 5432);
  const redisRanges = rangeOf("gateway", 6379);
  const postgres = hostIn(postgresRanges[0] ?? "");
  const redis = hostIn(redisRanges[0] ?? "");
  const internet = external("203.0.113.10");
  const privateHosts = [external("10.20.30.40"), external("172.16.5.5"), external("192.168.1.1"), external("169.254.169.254")];

  it("start from deny-all: every pod, both directions, no rule", () => {
    expect(find(policies, "NetworkPolicy", "deny-all").spec).toEqual({ podSelector: {}, policyTypes: ["Ingress", "Egress"] });
  });

  it("leave any other pod of the namespace nothing but DNS", () => {
    const stranger = strangers[0] as Endpoint;
    for (const to of [internet, postgres, broker, server("gateway")]) expect(allowed(policies, { from: stranger, to, port: 443 })).toBe(false);
    expect(allowed(policies, { from: stranger, to: postgres, port: 5432 })).toBe(false);
    expect(allowed(policies, { from: internet, to: stranger, port: 8080 })).toBe(false);
  });

  it.each(processes)("give %s a policy of its own that selects exactly its serving pods", (name) => {
    const spec = find(policies, "NetworkPolicy", name).spec as NetworkPolicySpec;
    expect(spec.podSelector.matchLabels).toEqual(workload(find(manifests, "Deployment", name)).selector?.matchLabels);
    expect(spec.policyTypes).toEqual(["Ingress", "Egress"]);
  });

  it.each(processes)("let %s call exactly the peers architecture.md and its config.ts name, each on its port only", (name) => {
    for (const peer of processes.filter((p) => p !== name)) {
      const expected = callsOf(name).includes(peer);
      expect(allowed(policies, { from: server(name), to: server(peer), port: portOf(peer) }), `${name} -> ${peer}`).toBe(expected);
      expect(allowed(policies, { from: server(name), to: server(peer), port: 9229 }), `${name} -> ${peer}:9229`).toBe(false);
    }
  });

  // The ingress controller each overlay names (ingress-nginx's chart labels in both).
  const ingressLabels = { "app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller" };
  const ingressController = pod(ingressLabels, "ingress-nginx");
  it("admit the ingress controller alone to the gateway's port (and the sandbox's fleet, its drivers' app), on that port only", () => {
    expect(allowed(policies, { from: ingressController, to: server("gateway"), port: portOf("gateway") })).toBe(true);
    expect(allowed(policies, { from: ingressController, to: server("gateway"), port: 9229 })).toBe(false);
    const impostors = [
      internet,
      ...privateHosts,
      ...strangers,
      prometheus,
      pod(ingressLabels, "other-team"),
      pod(ingressLabels),
      pod({ "app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "admission-webhook" }, "ingress-nginx"),
      ...processes.filter((p) => p !== "gateway" && p !== FLEET).map(server),
    ];
    for (const from of impostors) expect(allowed(policies, { from, to: server("gateway"), port: portOf("gateway") }), JSON.stringify(from)).toBe(false);
    if (processes.includes(FLEET)) expect(allowed(policies, { from: server(FLEET), to: server("gateway"), port: portOf("gateway") })).toBe(true);
  });

  it("let the gateway believe X-Forwarded-For from the ingress controller's range only, never from everywhere", () => {
    const ranges = (configOf("gateway").TRUSTED_PROXY_CIDRS ?? "").split(",").map((r) => r.trim()).filter(Boolean);
    expect(ranges.length).toBeGreaterThan(0);
    for (const range of ranges) expect(Number(range.split("/")[1]), range).toBeGreaterThanOrEqual(8);
    expect(configOf("gateway").TRUSTED_PROXY_HOPS).toBeUndefined();
  });

  it("admit nobody from outside or from a stranger pod to a service", () => {
    for (const name of processes.filter((p) => p !== "gateway")) {
      for (const from of [internet, ...strangers]) expect(allowed(policies, { from, to: server(name), port: portOf(name) }), name).toBe(false);
    }
  });

  it.each(processes)("let Prometheus scrape %s on its metrics port, and no other pod or outsider reach that port", (name) => {
    expect(allowed(policies, { from: prometheus, to: server(name), port: metricsPortOf(name) })).toBe(true);
    for (const from of [internet, ...strangers, ...processes.filter((p) => p !== name).map(server)]) {
      expect(allowed(policies, { from, to: server(name), port: metricsPortOf(name) })).toBe(false);
    }
  });

  // Operators reach admin listeners by port-forward; of the pods, only a process whose config.ts
  // reads the listener's url (the sandbox's fleet) is admitted, and only where it runs.
  const withAdmin = ["merchant", "shipment", "dispatch", "tracking", "webhook"];
  it.each(withAdmin)("admit nobody to the %s admin port but the processes of this overlay that manage it", (name) => {
    const adminPort = Number(configOf(name).ADMIN_PORT);
    expect(adminPort).toBeGreaterThan(0);
    const admitted = processes.filter((p) => (adminPeersOf(p) as string[]).includes(name));
    for (const from of [internet, prometheus, ...strangers, ...processes.filter((p) => p !== name && !admitted.includes(p)).map(server)]) {
      expect(allowed(policies, { from, to: server(name), port: adminPort })).toBe(false);
    }
    for (const p of admitted) expect(allowed(policies, { from: server(p), to: server(name), port: adminPort }), p).toBe(true);
    // An admin listener on loopback is out of every pod's reach whatever the policies say; one on
    // the pod's address only where a process of this overlay is admitted to it.
    expect(configOf(name).ADMIN_HOST ?? "127.0.0.1").toBe(admitted.length > 0 ? "0.0.0.0" : "127.0.0.1");
  });

  it("narrow PostgreSQL and Redis egress to one private range each, the overlay's own", () => {
    for (const ranges of [postgresRanges, redisRanges]) {
      expect(ranges).toHaveLength(1);
      const [address = "", prefix = "0"] = (ranges[0] ?? "").split("/");
      // Not the component's placeholder (TEST-NET-1), and no wider than a /16 of a private network.
      expect(address.startsWith("192.0.2."), ranges[0]).toBe(false);
      expect(Number(prefix), ranges[0]).toBeGreaterThanOrEqual(16);
      expect(address, ranges[0]).toMatch(/^(10\.|172\.(1[6-9]|2\d|3[01])\.|192\.168\.)/);
    }
  });

  it.each(processes)("open PostgreSQL and Kafka to %s exactly when its config.ts reads them, PostgreSQL in the overlay's range only", (name) => {
    expect(allowed(policies, { from: server(name), to: postgres, port: 5432 }), "PostgreSQL").toBe(usesDatabase(name));
    // Webhook delivers to merchants' public endpoints on any port; private addresses stay closed.
    const elsewhere = [...(reachesInternet(name) ? [] : [internet]), ...privateHosts, redis];
    for (const to of elsewhere) expect(allowed(policies, { from: server(name), to, port: 5432 }), to.ip).toBe(false);
    expect(allowed(policies, { from: server(name), to: broker, port: 9092 }), "Kafka").toBe(usesKafka(name));
    expect(allowed(policies, { from: server(name), to: broker, port: 9093 }), "the controller port").toBe(false);
  });

  it.each(processes)("open the rate limits' Redis to %s exactly when its config.ts reads it, on its port only", (name) => {
    const readsRedis = configKeys(name).has("RATE_LIMIT_REDIS_URL");
    expect(readsRedis).toBe(name === "gateway");
    expect(allowed(policies, { from: server(name), to: redis, port: 6379 })).toBe(readsRedis);
    expect(allowed(policies, { from: server(name), to: redis, port: 6380 })).toBe(false);
    for (const to of [...(reachesInternet(name) ? [] : [internet]), ...privateHosts, postgres]) expect(allowed(policies, { from: server(name), to, port: 6379 }), to.ip).toBe(false);
  });

  it.each([...processes, "a stranger pod"])("let %s resolve names through kube-dns or a node-local cache", (name) => {
    const from = name === "a stranger pod" ? (strangers[0] as Endpoint) : server(name);
    for (const protocol of ["UDP", "TCP"] as const) {
      expect(allowed(policies, { from, to: kubeDns, port: 53, protocol })).toBe(true);
      expect(allowed(policies, { from, to: external("169.254.20.10"), port: 53, protocol })).toBe(true);
    }
  });

  // Webhook delivers to merchants' endpoints; shipment keeps media bytes in object storage (S3).
  // The fleet's evidence goes through the gateway, which streams it there under shipment's policy.
  const reachesInternet = (name: string) => name === "webhook" || name === "shipment";
  it.each(processes)("let %s reach the internet only if it is webhook or shipment, and private ranges and cloud metadata never", (name) => {
    expect(allowed(policies, { from: server(name), to: internet, port: 443 })).toBe(reachesInternet(name));
    for (const to of privateHosts) expect(allowed(policies, { from: server(name), to, port: 443 }), to.ip).toBe(false);
    expect(allowed(policies, { from: server(name), to: external("169.254.169.254"), port: 80 })).toBe(false);
  });

  it.each(SERVICES_WITH_MIGRATIONS)("let the %s migration Job reach PostgreSQL and nothing else, and nothing reach it", (name) => {
    expect(allowed(policies, { from: migration(name), to: postgres, port: 5432 })).toBe(true);
    for (const elsewhere of [internet, ...privateHosts]) expect(allowed(policies, { from: migration(name), to: elsewhere, port: 5432 }), elsewhere.ip).toBe(false);
    expect(allowed(policies, { from: migration(name), to: broker, port: 9092 })).toBe(false);
    expect(allowed(policies, { from: migration(name), to: internet, port: 443 })).toBe(false);
    for (const peer of processes) {
      expect(allowed(policies, { from: migration(name), to: server(peer), port: portOf(peer) })).toBe(false);
      expect(allowed(policies, { from: server(peer), to: migration(name), port: 8080 })).toBe(false);
    }
  });
});
