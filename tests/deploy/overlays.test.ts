/**
 * The sandbox and production overlays, rendered: their namespace, environment, pinned image,
 * replica floors, disruption budgets and topic durability (the database connection budget: connection-budget.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { FAKE_SECRET_VALUES, find, ofKind, podSpec, processesIn, readConfigOf, scales, workload } from "./facts";
import { DEPLOY, podContainers, readKustomization, render, type Kustomization } from "./kustomize";
import type { Manifest } from "./manifest-types";

const OVERLAYS = [
  { overlay: "sandbox", namespace: "tawsil-sandbox", publicUrl: "https://sandbox.api.tawsil.sa", minReplicas: 1 },
  { overlay: "production", namespace: "tawsil-production", publicUrl: "https://api.tawsil.sa", minReplicas: 2 },
] as const;

interface Hpa { minReplicas: number; maxReplicas: number }
interface Pdb { minAvailable?: number; maxUnavailable?: number }
interface Topic { replicas: number; config: Record<string, string> }

type ImageEntry = NonNullable<Kustomization["images"]>[number];

/** An image by tag (`name:tag`), by digest (`name@sha256:...`), or both (`name:tag@sha256:...`), as kustomize writes them. */
const PINNED_IMAGE = /^[a-z0-9.-]+\.[a-z]+\/[a-z0-9/_-]+(:[\w][\w.-]{0,127}(@sha256:[a-f0-9]{64})?|@sha256:[a-f0-9]{64})$/;

/** The image kustomize renders for an images: entry: its tag, its digest, or both. */
const pinnedImage = (entry: ImageEntry | undefined): string =>
  `${entry?.newName ?? entry?.name}${entry?.newTag ? `:${entry.newTag}` : ""}${entry?.digest ? `@${entry.digest}` : ""}`;

const workloadsOf = (manifests: readonly Manifest[]) => ofKind(manifests, "Deployment").concat(ofKind(manifests, "Job"));

function expectPinnedImages(manifests: readonly Manifest[], processes: readonly string[]): void {
  const images = new Set(workloadsOf(manifests).flatMap((m) => podContainers(m).map((c) => c.image)));
  expect(images.size).toBe(processes.length);
  for (const image of images) {
    expect(image).toMatch(PINNED_IMAGE);
    expect(image).not.toMatch(/:latest(@|$)/);
  }
}

function expectOneEntryPerProcess(manifests: readonly Manifest[], entries: readonly ImageEntry[], processes: readonly string[]): void {
  expect(entries.map((e) => e.name).sort()).toEqual(processes.map((name) => `ghcr.io/tawsil/${name}`).sort());
  for (const m of workloadsOf(manifests)) {
    const process = (m.spec as { template: { metadata: { labels?: Record<string, string> } } }).template.metadata.labels?.["app.kubernetes.io/name"];
    const entry = entries.find((e) => e.name === `ghcr.io/tawsil/${process}`);
    for (const c of podContainers(m)) expect(c.image, `${m.kind}/${m.metadata.name}`).toBe(pinnedImage(entry));
  }
}

describe.each(OVERLAYS)("overlay $overlay", ({ overlay, namespace, publicUrl, minReplicas }) => {
  const dir = path.join(DEPLOY, "overlays", overlay);
  const manifests = render(dir);
  const processes = processesIn(overlay);

  it("puts everything in its namespace, which enforces the restricted Pod Security Standard", () => {
    expect(find(manifests, "Namespace", namespace).metadata.labels).toMatchObject({ "pod-security.kubernetes.io/enforce": "restricted" });
    expect(manifests.filter((m) => m.kind !== "Namespace" && m.metadata.namespace !== namespace).map((m) => m.kind)).toEqual([]);
  });

  it("includes the network-policies component", () => {
    expect(readKustomization(dir).components).toContain("../../components/network-policies");
    expect(ofKind(manifests, "NetworkPolicy").length).toBeGreaterThan(processes.length);
  });

  it("pins each process's own image to a registry and an explicit tag or digest, never latest", () => {
    expectPinnedImages(manifests, processes);
  });

  it("pins each process by an images: entry of its own, so one release moves one process", () => {
    expectOneEntryPerProcess(manifests, readKustomization(dir).images ?? [], processes);
  });

  it.each(processes)(`configures %s for ${overlay}, in a form its readConfig accepts`, async (name) => {
    const data = find(manifests, "ConfigMap", `${name}-config`).data ?? {};
    expect(data.TAWSIL_ENVIRONMENT).toBe(overlay);
    if (name === "gateway") expect(data.PUBLIC_BASE_URL).toBe(publicUrl);
    const readConfig = await readConfigOf(name);
    const config = readConfig({ ...data, ...FAKE_SECRET_VALUES }) as { TAWSIL_ENVIRONMENT: string };
    expect(config.TAWSIL_ENVIRONMENT).toBe(overlay);
  });

  it("has merchant sign tokens with the issuer and audience the gateway verifies", async () => {
    const [merchant, gateway] = await Promise.all(
      (["merchant", "gateway"] as const).map(async (name) => {
        const data = find(manifests, "ConfigMap", `${name}-config`).data ?? {};
        const config = (await readConfigOf(name))({ ...data, ...FAKE_SECRET_VALUES }) as { TOKEN_ISSUER: string; TOKEN_AUDIENCE: string };
        return { issuer: config.TOKEN_ISSUER, audience: config.TOKEN_AUDIENCE };
      }),
    );
    expect(merchant).toEqual(gateway);
  });

  it.each(processes.filter(scales))(`runs %s with at least ${minReplicas} replica(s), and a budget that never blocks a drain outright`, (name) => {
    const hpa = find(manifests, "HorizontalPodAutoscaler", name).spec as Hpa;
    const pdb = find(manifests, "PodDisruptionBudget", name).spec as Pdb;
    expect(hpa.minReplicas).toBeGreaterThanOrEqual(minReplicas);
    expect(hpa.maxReplicas).toBeGreaterThanOrEqual(hpa.minReplicas);
    expect("minAvailable" in pdb && "maxUnavailable" in pdb, "both minAvailable and maxUnavailable").toBe(false);
    const evictable = pdb.maxUnavailable ?? hpa.minReplicas - (pdb.minAvailable ?? hpa.minReplicas);
    expect(evictable).toBeGreaterThanOrEqual(1);
    // Production: one pod at a time, at any replica count (a drain never takes two of a process).
    if (overlay === "production") expect(pdb).toEqual({ maxUnavailable: 1, unhealthyPodEvictionPolicy: "AlwaysAllow", selector: expect.any(Object) });
  });

  it.each(processes.filter((name) => !scales(name)))("runs %s as one pod, with no autoscaler or budget that could ask for another", (name) => {
    expect(workload(find(manifests, "Deployment", name)).replicas).toBe(1);
    expect(manifests.filter((m) => ["HorizontalPodAutoscaler", "PodDisruptionBudget"].includes(m.kind) && m.metadata.name === name)).toEqual([]);
  });

  it("replicates every topic more than its min.insync.replicas, three times in production", () => {
    for (const topic of ofKind(manifests, "KafkaTopic")) {
      const spec = topic.spec as Topic;
      const minIsr = Number(spec.config["min.insync.replicas"]);
      if (overlay === "production") expect({ replicas: spec.replicas, minIsr }).toEqual({ replicas: 3, minIsr: 2 });
      else expect(spec.replicas).toBeGreaterThanOrEqual(minIsr);
    }
  });

  it("keeps the hardened pod spec after patches", () => {
    for (const m of [...ofKind(manifests, "Deployment"), ...ofKind(manifests, "Job")]) {
      expect(podSpec(m).securityContext, m.metadata.name).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    }
  });
});

// A release pipeline may pin by digest (`kustomize edit set image ghcr.io/tawsil/pricing@sha256:...`)
// or by tag and digest: production, with one image pinned each way on top, passes the same checks.
describe("production pinned by digest", () => {
  const digest = (c: string) => `sha256:${c.repeat(64)}`;
  const pins: ImageEntry[] = [
    { name: "ghcr.io/tawsil/pricing", digest: digest("a") },
    { name: "ghcr.io/tawsil/gateway", newTag: "2026.11.27-1", digest: digest("b") },
  ];
  const dir = mkdtempSync(path.join(os.tmpdir(), "tawsil-digest-pin-"));
  // kustomize takes no absolute path to a base: the production overlay, relative to the temporary directory.
  writeFileSync(path.join(dir, "kustomization.yaml"), stringify({
    apiVersion: "kustomize.config.k8s.io/v1beta1",
    kind: "Kustomization",
    resources: [path.relative(dir, path.join(DEPLOY, "overlays", "production"))],
    images: pins,
  }));
  const manifests = render(dir);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const entries = (readKustomization(path.join(DEPLOY, "overlays", "production")).images ?? []).map((e) => pins.find((p) => p.name === e.name) ?? e);

  it("renders name@digest and name:tag@digest, and they pass the overlay's image checks", () => {
    expect(podContainers(find(manifests, "Deployment", "pricing"))[0]?.image).toBe(`ghcr.io/tawsil/pricing@${digest("a")}`);
    expect(podContainers(find(manifests, "Deployment", "gateway"))[0]?.image).toBe(`ghcr.io/tawsil/gateway:2026.11.27-1@${digest("b")}`);
    expectPinnedImages(manifests, processesIn("production"));
    expectOneEntryPerProcess(manifests, entries, processesIn("production"));
  });
});
