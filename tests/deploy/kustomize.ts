/**
 * Reads deploy/ without kustomize (not installed here): every YAML document, and each
 * kustomization rendered by a deliberately small subset of kustomize's rules (resources,
 * components, namespace, labels, images, patches that merge maps). A kustomization using
 * anything else makes `render` throw, so the tests can never pass on a rendering that differs
 * from what `kubectl kustomize` would produce.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
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

/** The documents of one YAML file; throws naming the file on any syntax error or warning. */
export function readYaml(file: string): unknown[] {
  const text = readFileSync(path.resolve(ROOT, file), "utf8");
  return parseAllDocuments(text).flatMap((doc) => {
    const problems = [...doc.errors, ...doc.warnings];
    if (problems.length > 0) throw new Error(`${file}: ${problems.map((p) => p.message).join("; ")}`);
    const value: unknown = doc.toJS();
    return value === null || value === undefined ? [] : [value];
  });
}

interface PatchTarget {
  kind: string;
  name?: string;
}
interface Patch {
  path?: string;
  patch?: string;
  target?: PatchTarget;
}
export interface Kustomization {
  apiVersion: string;
  kind: "Kustomization" | "Component";
  namespace?: string;
  resources?: string[];
  components?: string[];
  labels?: { pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  patches?: Patch[];
}

const FIELDS = new Set(["apiVersion", "kind", "namespace", "resources", "components", "labels", "images", "patches"]);

export function readKustomization(dir: string): Kustomization {
  const file = path.relative(ROOT, path.join(dir, "kustomization.yaml"));
  const [doc] = readYaml(file) as Kustomization[];
  if (!doc) throw new Error(`${file} is empty`);
  const unknown = Object.keys(doc).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) throw new Error(`${file}: the test renderer does not implement ${unknown.join(", ")}`);
  return doc;
}

/** The manifests a kustomization produces, as `kubectl kustomize <dir>` would for this subset. */
export function render(dir: string): Manifest[] {
  const k = readKustomization(dir);
  let out: Manifest[] = (k.resources ?? []).flatMap((entry) => load(path.join(dir, entry)));
  for (const component of k.components ?? []) out = [...out, ...render(path.join(dir, component))];
  for (const patch of k.patches ?? []) out = applyPatch(out, patch, dir);
  for (const entry of k.labels ?? []) {
    if (entry.includeSelectors) throw new Error(`${dir}: labels in selectors are immutable once applied; keep includeSelectors false`);
    for (const m of out) {
      m.metadata.labels = { ...m.metadata.labels, ...entry.pairs };
      const template = (m.spec as Partial<WorkloadSpec> | undefined)?.template;
      if (entry.includeTemplates && template) template.metadata = { ...template.metadata, labels: { ...template.metadata.labels, ...entry.pairs } };
    }
  }
  for (const image of k.images ?? []) out.forEach((m) => retag(m, image));
  if (k.namespace) for (const m of out) if (m.kind !== "Namespace") m.metadata.namespace = k.namespace;
  return out;
}

function load(entry: string): Manifest[] {
  if (!existsSync(entry)) throw new Error(`${path.relative(ROOT, entry)} is listed but does not exist`);
  if (statSync(entry).isDirectory()) return render(entry);
  return readYaml(path.relative(ROOT, entry)) as Manifest[];
}

function applyPatch(manifests: Manifest[], patch: Patch, dir: string): Manifest[] {
  const text = patch.patch ?? (patch.path ? readFileSync(path.join(dir, patch.path), "utf8") : undefined);
  if (text === undefined) throw new Error(`${dir}: a patch needs patch or path`);
  const [body] = parseAllDocuments(text).map((doc) => doc.toJS() as Manifest);
  if (!body) throw new Error(`${dir}: empty patch`);
  const target = patch.target ?? { kind: body.kind, name: body.metadata.name };
  const extra = Object.keys(target).filter((key) => key !== "kind" && key !== "name");
  if (extra.length > 0) throw new Error(`${dir}: the test renderer does not select patch targets by ${extra.join(", ")}`);
  const matches = (m: Manifest) => m.kind === target.kind && (target.name === undefined || m.metadata.name === target.name);
  if (!manifests.some(matches)) throw new Error(`${dir}: patch for ${target.kind}/${target.name ?? "*"} matches nothing`);
  // With a target, the patch's own name is a placeholder (kustomize ignores it).
  const { apiVersion: _a, kind: _k, metadata, ...rest } = body;
  const { name: _n, ...metadataRest } = metadata;
  const changes = { ...rest, ...(Object.keys(metadataRest).length > 0 ? { metadata: metadataRest } : {}) };
  return manifests.map((m) => (matches(m) ? (mergeMaps(m, changes, `${dir}: patch`) as Manifest) : m));
}

/** Strategic merge for maps only: null deletes a key. Lists merge by key in kustomize: refused. */
export function mergeMaps(target: unknown, patch: unknown, where: string): unknown {
  if (Array.isArray(patch)) throw new Error(`${where}: the test renderer does not merge lists`);
  if (typeof patch !== "object" || patch === null) return patch;
  const out: Record<string, unknown> = typeof target === "object" && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergeMaps(out[key], value, `${where}.${key}`);
  }
  return out;
}

function retag(m: Manifest, image: NonNullable<Kustomization["images"]>[number]): void {
  for (const container of podContainers(m)) {
    const [name, tag] = container.image.split(":");
    if (name !== image.name) continue;
    const ref = image.newName ?? name;
    const newTag = image.newTag ?? tag;
    container.image = image.digest ? `${ref}@${image.digest}` : newTag ? `${ref}:${newTag}` : ref;
  }
}

/** Containers and init containers of a Deployment's or Job's pod template. */
export function podContainers(m: Manifest): Container[] {
  const spec = (m.spec as Partial<WorkloadSpec> | undefined)?.template?.spec;
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
}
