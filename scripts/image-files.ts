/**
 * The files of one process's image (Dockerfile: `tsx scripts/image-files.ts <process>`), as paths
 * relative to the repository, at the same paths in the image's /app: the process's bundle and
 * source map, the files it reads at run time (data/), and for a service its committed migrations
 * with the migration runner's bundle (its Job and initContainer run from the service's own image).
 * Nothing of another process, no node_modules, no TypeScript, no make depfile.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildTargets } from "../packages/testing/src/bundles";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// By hand: Node 20's recursive readdir with file types skips entries of nested folders.
function filesUnder(root: string, dir: string): string[] {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(root, path.join(dir, entry.name)) : entry.isFile() ? [path.join(dir, entry.name)] : [],
  );
}

const withMap = (outfile: string) => [outfile, `${outfile}.map`];

/** Throws for an unknown process, or when a bundle is missing (run `make build` first). */
export function imageFiles(process: string, root: string = ROOT): string[] {
  const targets = buildTargets(root);
  const own = targets.find((t) => t.name === process && t.name !== "migrate-cli");
  if (!own) throw new Error(`no process ${process}: choose one of ${targets.filter((t) => t.name !== "migrate-cli").map((t) => t.name).join(", ")}`);
  const dir = path.dirname(path.dirname(own.entry));
  const migrateCli = targets.find((t) => t.name === "migrate-cli")?.outfile ?? "";
  const files =
    process === "gateway"
      ? // The renderer of /docs is copied beside the gateway's bundle by scripts/build.ts.
        [...withMap(own.outfile), path.join(dir, "dist", "redoc.standalone.js"), ...filesUnder(root, path.join(dir, "data"))]
      : [...withMap(own.outfile), ...filesUnder(root, path.join(dir, "data")), ...filesUnder(root, path.join(dir, "prisma", "migrations")), ...withMap(migrateCli)];
  const missing = files.filter((file) => !existsSync(path.join(root, file)));
  if (missing.length > 0) throw new Error(`missing, run make build: ${missing.join(", ")}`);
  return files.sort();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // NUL-separated, for `xargs -0 cp --parents`.
  process.stdout.write(imageFiles(process.argv[2] ?? "").map((file) => `${file}\0`).join(""));
}
