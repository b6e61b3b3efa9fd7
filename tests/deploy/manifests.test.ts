/**
 * The kustomize base under deploy/ proves its invariants without a cluster: each of the seven
 * processes gets every object it needs, hardened the same way, configured so its own config.ts
 * accepts it, with secrets only by reference and its database migrated before it serves. The
 * sandbox's fleet, which the sandbox overlay alone adds, is held to the same checks, as written
 * there; what it lacks by design (a Service, an identity, autoscaling) follows from what it is
 * (facts.ts: served, hasIdentity, scales).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildTargets } from "../../packages/testing/src/bundles";
import { BUNDLE, NODE_FLAGS, TOPICS } from "../../packages/topology/src";
import {
  ALL_PROCESSES, APP_UID, DRAIN_ALLOWANCE_MS, FAKE_CONFIG_VALUES, FAKE_SECRET_VALUES, IDENTITY_KEY, SERVICES_WITH_MIGRATIONS, adminPeersOf, configKeys, find,
  hasIdentity, ofKind, peerUrlKeys, podSpec, readConfigOf, scales, secretKeysOf, secretRefOf, served, sourceDir, usesKafka, workload,
} from "./facts";
import { LIVENESS_SERVICE } from "../../packages/rpc/src/health-service";
import { DEPLOY, ROOT, overlayOwnObjects, readKustomization, readYaml, render, yamlFiles } from "./kustomize";
import type { Container, Manifest } from "./manifest-types";

const base = render(path.join(DEPLOY, "base"));
/** The base plus what the sandbox overlay adds (its fleet), unpinned: every process's objects. */
const written = [...base, ...overlayOwnObjects("sandbox")];
const serverLabels = (name: string) => ({ "app.kubernetes.io/name": name, "app.kubernetes.io/component": "server" });
const containersOf = (m: Manifest): Container[] => [...(podSpec(m).initContainers ?? []), ...podSpec(m).containers];
const mainContainer = (name: string): Container => podSpec(find(written, "Deployment", name)).containers[0] as Container;
const configOf = (name: string): Record<string, string> => find(written, "ConfigMap", `${name}-config`).data ?? {};
const secretRefs = (c: Container) => (c.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [{ env: e.name, ...e.valueFrom.secretKeyRef }] : []));
const configMapRefs = (c: Container) => (c.env ?? []).flatMap((e) => (e.valueFrom?.configMapKeyRef ? [{ env: e.name, ...e.valueFrom.configMapKeyRef }] : []));

describe("deploy/ files", () => {
  it.each(yamlFiles())("%s parses as YAML, every document a Kubernetes object", (file) => {
    const docs = readYaml(file) as Partial<Manifest>[];
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) expect(doc).toMatchObject({ apiVersion: expect.any(String), kind: expect.any(String) });
  });

  it.each(yamlFiles().filter((f) => f.endsWith("kustomization.yaml")))("%s lists only files that exist, and every file beside it", (file) => {
    const dir = path.join(ROOT, path.dirname(file));
    const k = readKustomization(dir);
    const listed = [...(k.resources ?? []), ...(k.components ?? []), ...(k.patches ?? []).flatMap((p) => (p.path ? [p.path] : []))];
    for (const entry of listed) expect(existsSync(path.join(dir, entry)), `${file} lists ${entry}`).toBe(true);
    const siblings = yamlFiles(dir).filter((f) => path.dirname(f) === path.dirname(file) && !f.endsWith("kustomization.yaml"));
    expect(siblings.map((f) => path.basename(f)).filter((f) => !listed.includes(f)), "YAML files no kustomization renders").toEqual([]);
  });

  it("commit no Secret: values are created in the cluster, never stored here", () => {
    const all = yamlFiles().flatMap((f) => readYaml(f) as Manifest[]);
    expect(all.filter((m) => m.kind === "Secret").map((m) => m.metadata.name)).toEqual([]);
  });
});

describe.each(ALL_PROCESSES)("process %s", (name) => {
  const deployment = find(written, "Deployment", name);
  const container = mainContainer(name);
  const port = container.ports?.[0];
  const metricsPort = container.ports?.find((p) => p.name === "metrics");

  const named = (kind: string) => written.filter((m) => m.kind === kind && m.metadata.name === name);

  it("has a Deployment, ServiceAccount and ConfigMap; a Service if anything calls it; a PodDisruptionBudget and HorizontalPodAutoscaler if it scales", () => {
    expect(workload(deployment).selector?.matchLabels).toEqual(serverLabels(name));
    expect(workload(deployment).template.metadata.labels).toMatchObject(serverLabels(name));
    expect(find(written, "ServiceAccount", name)).toMatchObject({ automountServiceAccountToken: false });
    expect(podSpec(deployment)).toMatchObject({ serviceAccountName: name, automountServiceAccountToken: false, enableServiceLinks: false });
    expect(find(written, "ConfigMap", `${name}-config`)).toBeDefined();
    if (served(name)) expect(find(written, "Service", name).spec).toMatchObject({ selector: serverLabels(name), ports: [{ targetPort: port?.name, port: port?.containerPort }] });
    else expect(named("Service"), "a Service nothing calls").toEqual([]);
    if (scales(name)) {
      expect(find(written, "PodDisruptionBudget", name).spec).toMatchObject({ selector: { matchLabels: serverLabels(name) } });
      expect(find(written, "HorizontalPodAutoscaler", name).spec).toMatchObject({ scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name } });
      // The HPA owns the count; a replicas field would reset it on every apply.
      expect(workload(deployment).replicas).toBeUndefined();
    } else {
      // One pod, always, and never two at once: not even during a rollout.
      expect(workload(deployment)).toMatchObject({ replicas: 1, strategy: { type: "Recreate" } });
      expect([...named("HorizontalPodAutoscaler"), ...named("PodDisruptionBudget")]).toEqual([]);
    }
  });

  it("runs its own compiled entry point from its own directory, like the mesh launcher (packages/testing/src/mesh)", () => {
    expect(container.command).toEqual(["node", ...NODE_FLAGS, BUNDLE]);
    expect(container.workingDir).toBe(`/app/${sourceDir(name)}`);
    expect(existsSync(path.join(ROOT, sourceDir(name), "src", "main.ts"))).toBe(true);
    // `make build` (and so the image) compiles exactly that entry point to exactly that bundle.
    expect(buildTargets()).toContainEqual({ name, entry: path.join(sourceDir(name), "src", "main.ts"), outfile: path.join(sourceDir(name), BUNDLE) });
  });

  it.runIf(name === "gateway")("probes /healthz for startup and liveness and /readyz for readiness, on its serving port", () => {
    expect(container.startupProbe?.httpGet).toEqual({ path: "/healthz", port: port?.name });
    expect(container.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: port?.name });
    expect(container.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: port?.name });
  });

  // The gRPC probe asks grpc.health.v1 Check on a port number (it takes no named port), for the
  // names our health service answers: LIVENESS_SERVICE (the process is up) and "" (readiness).
  it.runIf(name !== "gateway")("probes its gRPC health service natively: liveness for startup and liveness, readiness (\"\") for readiness, on its serving port", () => {
    const grpc = (service: string) => ({ port: port?.containerPort, service });
    expect({ startup: container.startupProbe, liveness: container.livenessProbe, readiness: container.readinessProbe }).toMatchObject({
      startup: { grpc: grpc(LIVENESS_SERVICE) },
      liveness: { grpc: grpc(LIVENESS_SERVICE) },
      readiness: { grpc: grpc("") },
    });
    for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) expect(probe?.httpGet).toBeUndefined();
  });

  it("is scraped for metrics on its serving port", () => {
    expect(workload(deployment).template.metadata.annotations).toEqual({
      "prometheus.io/scrape": "true", "prometheus.io/port": String(metricsPort?.containerPort), "prometheus.io/path": "/metrics",
    });
  });

  it("serves /metrics on a port of its own, which its Service (one port: the serving one), if any, leaves out", () => {
    expect(metricsPort?.containerPort).toBeGreaterThan(0);
    expect(metricsPort?.containerPort).not.toBe(port?.containerPort);
    expect(configOf(name).METRICS_PORT).toBe(String(metricsPort?.containerPort));
    if (served(name)) expect((find(written, "Service", name).spec as { ports: { port: number }[] }).ports.map((p) => p.port)).toEqual([port?.containerPort]);
  });

  it("keeps admin RPCs, if it has any, on a loopback port that no containerPort or Service names", () => {
    const data = configOf(name);
    expect("ADMIN_PORT" in data).toBe(["merchant", "shipment", "dispatch", "tracking", "webhook"].includes(name));
    if (!("ADMIN_PORT" in data)) return;
    // ADMIN_HOST is left to its default, 127.0.0.1: reached by `kubectl port-forward`, by no pod.
    expect("ADMIN_HOST" in data).toBe(false);
    expect(container.ports?.map((p) => String(p.containerPort))).not.toContain(data.ADMIN_PORT);
  });

  it("is given more termination grace than its preStop pause (if a Service routes to it), SHUTDOWN_GRACE_MS and the drain's allowance together", () => {
    const preStop = container.lifecycle?.preStop?.exec?.command ?? [];
    // The pause lets endpoints drop the pod before it drains: only a pod behind a Service has any.
    if (served(name)) expect(preStop[0]).toBe("sleep");
    else expect(container.lifecycle).toBeUndefined();
    const budgetMs = Number(preStop[1] ?? 0) * 1000 + Number(configOf(name).SHUTDOWN_GRACE_MS) + DRAIN_ALLOWANCE_MS;
    expect(Number.isFinite(budgetMs)).toBe(true);
    expect((podSpec(deployment).terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(budgetMs);
  });

  it("gets only settings its config.ts reads, on 0.0.0.0 and the port its Service targets", () => {
    const data = configOf(name);
    expect(Object.keys(data).filter((key) => !configKeys(name).has(key)), "keys nothing reads").toEqual([]);
    expect(data).toMatchObject({ HOST: "0.0.0.0", PORT: String(port?.containerPort), NODE_ENV: "production" });
    expect("KAFKA_BROKERS" in data).toBe(usesKafka(name));
    for (const key of peerUrlKeys(name)) {
      const peer = key.replace(/_SERVICE_URL$/, "").toLowerCase();
      expect(data[key], key).toBe(`http://${peer}:${mainContainer(peer).ports?.[0]?.containerPort}`);
    }
    // The fleet's ways in: the gateway's Service, and each service's admin listener on its ADMIN_PORT.
    if ("GATEWAY_URL" in data) expect(data.GATEWAY_URL).toBe(`http://gateway:${(find(written, "Service", "gateway").spec as { ports: { port: number }[] }).ports[0]?.port}`);
    for (const peer of adminPeersOf(name)) {
      expect(configOf(peer).ADMIN_PORT, peer).toMatch(/^\d+$/);
      expect(data[`${peer.toUpperCase()}_ADMIN_URL`], peer).toBe(`http://${peer}:${configOf(peer).ADMIN_PORT}`);
    }
    expect(container.envFrom).toEqual([{ configMapRef: { name: `${name}-config` } }]);
  });

  it("starts: its own readConfig accepts the ConfigMap plus the Secret keys it references", async () => {
    const secrets = Object.fromEntries(secretRefs(container).map((ref) => [ref.env, FAKE_SECRET_VALUES[ref.key]]));
    const literals = Object.fromEntries((container.env ?? []).flatMap((e) => (e.value === undefined ? [] : [[e.name, e.value]])));
    const shared = Object.fromEntries(configMapRefs(container).map((ref) => [ref.env, FAKE_CONFIG_VALUES[ref.key]]));
    const readConfig = await readConfigOf(name);
    expect(() => readConfig({ ...configOf(name), ...literals, ...shared, ...secrets })).not.toThrow();
  });

  it("signs with its own identity key, in a Secret of its own, and trusts the public keys of one shared ConfigMap (a process of the mesh; the fleet has none)", () => {
    const identity = hasIdentity(name);
    expect(secretRefs(container).filter((ref) => ref.key === IDENTITY_KEY)).toEqual(identity ? [{ env: IDENTITY_KEY, name: `${name}-identity`, key: IDENTITY_KEY }] : []);
    expect(configMapRefs(container)).toEqual(
      identity
        ? [
            { env: "SERVICE_IDENTITY_PUBLIC_KEYS", name: "service-identity", key: "SERVICE_IDENTITY_PUBLIC_KEYS" },
            // Set in the ConfigMap only for the rollout that upgrades from a release before key ids.
            { env: "SERVICE_IDENTITY_TOKEN_KID", name: "service-identity", key: "SERVICE_IDENTITY_TOKEN_KID", optional: true },
          ]
        : [],
    );
  });

  it.runIf(served(name))("is reached by a headless Service (one DNS record per pod, so callers spread over the pods), the gateway by a virtual IP", () => {
    expect((find(written, "Service", name).spec as { clusterIP?: string }).clusterIP).toBe(name === "gateway" ? undefined : "None");
  });

  it("takes its database url, keys and Kafka password from its own Secrets by reference, never from a value", () => {
    const refs = secretRefs(container);
    expect(refs.map((r) => r.env).sort()).toEqual(secretKeysOf(name));
    for (const ref of refs) expect({ name: ref.name, key: ref.key }, ref.env).toEqual(secretRefOf(name, ref.env));
    expect(refs.every((r) => r.key in FAKE_SECRET_VALUES)).toBe(true);
    expect(Object.keys(configOf(name)).filter((key) => secretKeysOf(name).includes(key))).toEqual([]);
    expect(Object.values(configOf(name)).filter((value) => /:\/\/[^/\s]*:[^@\s]*@/.test(value)), "urls with a password").toEqual([]);
  });
});

describe.each([...ofKind(written, "Deployment"), ...ofKind(written, "Job")].map((m) => [`${m.kind}/${m.metadata.name}`, m] as const))("%s", (_, m) => {
  it("runs as uid 10001, non-root, with RuntimeDefault seccomp", () => {
    expect(podSpec(m).securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: APP_UID, seccompProfile: { type: "RuntimeDefault" } });
    for (const c of containersOf(m)) expect(c.securityContext?.runAsUser ?? APP_UID, c.name).toBe(APP_UID);
  });

  it("has every container read-only, unprivileged, with all capabilities dropped and /tmp on an emptyDir", () => {
    expect(podSpec(m).volumes).toContainEqual({ name: "tmp", emptyDir: expect.any(Object) });
    for (const c of containersOf(m)) {
      expect(c.securityContext, c.name).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
      expect(c.volumeMounts, c.name).toContainEqual({ name: "tmp", mountPath: "/tmp" });
    }
  });

  it("sets cpu and memory requests and limits on every container", () => {
    for (const c of containersOf(m)) {
      expect(Object.keys(c.resources?.requests ?? {}).sort(), c.name).toEqual(["cpu", "memory"]);
      expect(Object.keys(c.resources?.limits ?? {}).sort(), c.name).toEqual(["cpu", "memory"]);
    }
  });

  it("uses its own process's image (ghcr.io/tawsil/<process>) by name only, for the overlays to pin (never a latest or floating tag)", () => {
    const process = workload(m).template.metadata.labels?.["app.kubernetes.io/name"];
    expect(ALL_PROCESSES).toContain(process);
    for (const c of containersOf(m)) expect(c.image, c.name).toBe(`ghcr.io/tawsil/${process}`);
  });

  it("has no literal env value that holds a credential", () => {
    for (const e of containersOf(m).flatMap((c) => c.env ?? [])) {
      if (e.value === undefined) continue;
      expect(e.value, e.name).not.toMatch(/:\/\/[^/\s]*:[^@\s]*@/);
      expect(e.name).not.toMatch(/(_URL$|_KEY$|SECRET|PASSWORD|TOKEN$)/);
    }
  });
});

describe.each(SERVICES_WITH_MIGRATIONS)("migrations of %s", (name) => {
  const migrateCli = buildTargets().find((target) => target.name === "migrate-cli");
  const command = ["node", ...NODE_FLAGS, migrateCli?.outfile];
  const migrations = `services/${name}/prisma/migrations`;

  it("run as a Job with the migration runner CLI on its committed migrations, as the schema-owning migration role", () => {
    const job = find(base, "Job", `${name}-migrate`);
    expect(podSpec(job).containers).toEqual([expect.objectContaining({
      workingDir: "/app", command, args: [migrations],
      env: [{ name: "MIGRATION_DATABASE_URL", valueFrom: { secretKeyRef: { name: `${name}-migration-secrets`, key: "MIGRATION_DATABASE_URL" } } }],
    })]);
    expect(podSpec(job).restartPolicy).toBe("Never");
    expect(workload(job).template.metadata.labels).toMatchObject({ "app.kubernetes.io/name": name, "app.kubernetes.io/component": "migration" });
    // The Job object's own labels: `kubectl delete/wait job -l` select on these, not the pod's.
    expect(job.metadata.labels).toMatchObject({ "app.kubernetes.io/name": name, "app.kubernetes.io/component": "migration" });
    expect(migrateCli?.entry).toBe("packages/db/src/migrate-cli.ts");
    for (const file of ["packages/db/src/migrate-cli.ts", migrations]) expect(existsSync(path.join(ROOT, file)), file).toBe(true);
  });

  it("gate the Deployment: an initContainer waits, as the runtime role, until the Job has applied every migration", () => {
    expect(podSpec(find(base, "Deployment", name)).initContainers).toEqual([expect.objectContaining({
      workingDir: "/app", command, args: ["--wait", migrations],
      env: [{ name: "DATABASE_URL", valueFrom: { secretKeyRef: { name: `${name}-secrets`, key: "DATABASE_URL" } } }],
    })]);
  });

  it("keep the migration credential out of the Deployment, and the runtime one out of the Job", () => {
    const deploymentRefs = containersOf(find(base, "Deployment", name)).flatMap(secretRefs);
    expect(deploymentRefs.filter((r) => r.name.endsWith("-migration-secrets") || r.key === "MIGRATION_DATABASE_URL")).toEqual([]);
    expect(deploymentRefs.filter((r) => r.env === "DATABASE_URL").map((r) => r.key)).toContain("DATABASE_URL");
    const jobRefs = containersOf(find(base, "Job", `${name}-migrate`)).flatMap(secretRefs);
    expect(jobRefs.map((r) => `${r.name}/${r.key}`)).toEqual([`${name}-migration-secrets/MIGRATION_DATABASE_URL`]);
  });
});

describe.each(["base", "overlays/sandbox", "overlays/production"])("secrets on command lines, %s", (dir) => {
  const workloads = render(path.join(DEPLOY, dir)).filter((m) => m.kind === "Deployment" || m.kind === "Job");

  it("no container's command or args expands an env variable ($(VAR)) or holds a url with credentials", () => {
    expect(workloads.length).toBeGreaterThan(0);
    for (const m of workloads) {
      for (const c of containersOf(m)) {
        for (const word of [...(c.command ?? []), ...(c.args ?? [])]) {
          expect(word, `${m.metadata.name}/${c.name}`).not.toMatch(/\$\([A-Za-z_][A-Za-z0-9_]*\)/);
          expect(word, `${m.metadata.name}/${c.name}`).not.toMatch(/:\/\/[^/\s]*:[^@\s]*@/);
        }
      }
    }
  });
});

describe("Kafka topics", () => {
  const topics = ofKind(base, "KafkaTopic");

  it("are exactly packages/topology TOPICS with their partition counts and compaction, on the Strimzi cluster the services use", () => {
    const specs = topics.map((t) => ({ name: t.metadata.name, spec: t.spec as { topicName: string; partitions: number; config?: Record<string, string> } }));
    const declared = specs.map((t) => ({ topic: t.spec.topicName, numPartitions: t.spec.partitions, ...(t.spec.config?.["cleanup.policy"] === "compact" ? { compacted: true } : {}) }));
    expect(declared.sort((a, b) => a.topic.localeCompare(b.topic)))
      .toEqual([...TOPICS].sort((a, b) => a.topic.localeCompare(b.topic)));
    expect(specs.every((t) => t.name === t.spec.topicName)).toBe(true);
    for (const t of topics) expect(t.metadata.labels?.["strimzi.io/cluster"]).toBe("tawsil");
    for (const cm of ofKind(base, "ConfigMap")) if (cm.data?.KAFKA_BROKERS) expect(cm.data.KAFKA_BROKERS).toMatch(/^tawsil-kafka-bootstrap\./);
  });
});

describe("deploy/README.md", () => {
  const readme = readFileSync(path.join(DEPLOY, "README.md"), "utf8");

  it("documents every Secret and key the manifests reference", () => {
    const refs = [...ofKind(base, "Deployment"), ...ofKind(base, "Job")].flatMap((d) => containersOf(d).flatMap(secretRefs));
    expect(refs.some((ref) => ref.key === "MIGRATION_DATABASE_URL")).toBe(true);
    for (const ref of refs) expect(readme, `${ref.name} ${ref.key}`).toMatch(new RegExp(`${ref.name}\\b[^\\n]*\\b${ref.key}\\b`));
  });

  it("says a process needs a key only when its config reads it, and does not need one only when it does not", () => {
    const text = readme.replace(/\s+/g, " ");
    const claims = [...text.matchAll(/the (\w+) service (will need|needs|does not need) (?:the same )?`([A-Z][A-Z0-9_]+)`/g)];
    expect(claims.length).toBeGreaterThan(0);
    for (const [claim, name, verb, key] of claims) {
      expect(ALL_PROCESSES, claim).toContain(name);
      expect(configKeys(name as (typeof ALL_PROCESSES)[number]).has(key!), claim).toBe(verb !== "does not need");
    }
  });

  it("keeps /healthz and /readyz off the public ingress route: it routes the API's paths only", () => {
    const text = readme.replace(/\s+/g, " ");
    expect(text).not.toMatch(/through the ingress, if it routes \/readyz/);
    expect(text).toContain("Route only the paths of the API to it");
    expect(text).toContain("never `/healthz` or `/readyz`");
  });

  it("documents how the identity Secrets and the public keys' ConfigMap are made, by a script that prints exactly those", () => {
    // Run as the README says, not imported: what kubectl receives is the script's output.
    const printed = execFileSync(path.join(ROOT, "node_modules", ".bin", "tsx"), ["scripts/identity-keys.ts"], { cwd: ROOT, encoding: "utf8" });
    const made = printed.split("\n---\n").map((doc) => JSON.parse(doc) as Manifest);
    const referenced = ofKind(base, "Deployment").flatMap((d) => podSpec(d).containers.flatMap((c) => [...secretRefs(c), ...configMapRefs(c)]))
      .filter((ref) => ref.key.startsWith("SERVICE_IDENTITY_"));
    expect(made.map((m) => `${m.kind}/${m.metadata.name}`).sort()).toEqual([...new Set(referenced.map((ref) => `${ref.key.endsWith("PRIVATE_KEY") ? "Secret" : "ConfigMap"}/${ref.name}`))].sort());
    expect(readme).toContain("scripts/identity-keys.ts | kubectl apply");
  });

  it("rotates one process's identity key in three phases, each replaced then rolled out to every Deployment that reads the public keys", () => {
    const section = readme.slice(readme.indexOf("## Rotating a service-identity key"));
    const procedure = section.slice(section.indexOf("```sh"), section.indexOf("```\n", section.indexOf("```sh") + 5));
    const phases = [...procedure.matchAll(/identity-keys\.ts (\w+) \$P \| kubectl -n \$NS replace -f -/g)].map((m) => m[1]);
    expect(phases).toEqual(["publish", "switch", "retire"]);
    const readers = ofKind(base, "Deployment").filter((d) => podSpec(d).containers.some((c) => configMapRefs(c).some((ref) => ref.name === "service-identity")));
    expect((/^ALL="([^"]+)"$/m.exec(procedure)?.[1] ?? "").split(" ").sort()).toEqual(readers.map((d) => d.metadata.name).sort());
    // After publish and retire every reader restarts; after switch, the rotated process alone.
    const [afterPublish, afterSwitch, afterRetire] = procedure.split(/identity-keys\.ts \w+ \$P/).slice(1);
    for (const step of [afterPublish, afterRetire]) expect(step).toContain("for d in $ALL; do kubectl -n $NS rollout restart deploy/$d; done");
    expect(afterSwitch).toContain("kubectl -n $NS rollout restart deploy/$P && kubectl -n $NS rollout status deploy/$P");
  });
});

describe.each(["overlays/sandbox", "overlays/production"])("the deploy procedure of deploy/README.md, on %s", (dir) => {
  const readme = readFileSync(path.join(DEPLOY, "README.md"), "utf8");
  const manifests = render(path.join(DEPLOY, dir));
  // `MIGRATIONS=k=v,k=v` and every `job -l $MIGRATIONS` of the procedure: equality-based selectors only.
  const selector = /^MIGRATIONS=(\S+)$/m.exec(readme)?.[1] ?? "";
  const matches = (labels: Record<string, string> | undefined) =>
    selector.split(",").every((term) => {
      const [key, value] = term.split("=");
      return key !== undefined && value !== undefined && labels?.[key] === value;
    });

  it("selects every migration Job, and nothing else, with the selector it deletes and waits on", () => {
    expect(selector).toMatch(/^[\w./-]+=[\w.-]+(,[\w./-]+=[\w.-]+)*$/);
    expect(readme).toContain("delete job -l $MIGRATIONS");
    expect(readme).toContain("wait --for=condition=complete job -l $MIGRATIONS");
    const jobs = ofKind(manifests, "Job");
    expect(jobs.map((j) => j.metadata.name).sort()).toEqual(SERVICES_WITH_MIGRATIONS.map((name) => `${name}-migrate`).sort());
    expect(jobs.filter((j) => !matches(j.metadata.labels)).map((j) => j.metadata.name)).toEqual([]);
    // Nothing but migration Jobs may carry it: a Deployment selected by `delete -l` would be lost.
    expect(manifests.filter((m) => m.kind !== "Job" && matches(m.metadata.labels)).map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([]);
  });
});
