/**
 * Where each process's bundle is (`make build`, scripts/build.ts, writes them) and whether it is
 * older than its sources: the mesh refuses stale bundles, which would run old code without a word,
 * and the deploy checks read the same list of processes the build bundles.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BUNDLE } from "@tawsil/topology";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export interface BuildTarget {
  /** The process (gateway, a service) or tool (migrate-cli). */
  readonly name: string;
  /** Entry point, relative to the root. */
  readonly entry: string;
  /** Output file, relative to the root. */
  readonly outfile: string;
}

/** The gateway, every service with a src/main.ts, and the migration runner, in a stable order. */
export function buildTargets(root: string = ROOT): BuildTarget[] {
  const services = readdirSync(path.join(root, "services"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(root, "services", entry.name, "src", "main.ts")))
    .map((entry) => entry.name)
    .sort();
  const processes = [{ name: "gateway", dir: "gateway" }, ...services.map((name) => ({ name, dir: path.join("services", name) }))];
  return [
    ...processes.map(({ name, dir }) => ({ name, entry: path.join(dir, "src", "main.ts"), outfile: path.join(dir, BUNDLE) })),
    { name: "migrate-cli", entry: "packages/db/src/migrate-cli.ts", outfile: "packages/db/dist/migrate-cli.mjs" },
  ];
}

/** The makefile of a bundle's inputs, written beside it by each build (scripts/build.ts). */
export function depfilePath(target: BuildTarget): string {
  return `${target.outfile}.d`;
}

/** Targets whose bundle is missing, or older than one of the inputs its last build recorded. */
export function staleTargets(targets: BuildTarget[] = buildTargets(), root: string = ROOT): BuildTarget[] {
  return targets.filter((target) => {
    const outfile = path.join(root, target.outfile);
    const depfile = path.join(root, depfilePath(target));
    if (!existsSync(outfile) || !existsSync(depfile)) return true;
    const built = statSync(outfile).mtimeMs;
    const inputs = readFileSync(depfile, "utf8").split("\n\n")[0]?.split("\n").slice(1) ?? [];
    return inputs.some((line) => {
      const input = path.join(root, line.replace(/\\$/, "").trim());
      return !existsSync(input) || statSync(input).mtimeMs > built;
    });
  });
}
