/**
 * What each process's image weighs without building it (no container engine here): its runtime
 * tree (scripts/image-files.ts, from the bundles `make build` wrote) plus the base image.
 * `make image-size` prints it; deploy/README.md records the figure; tests/deploy keeps each tree
 * under its budget.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildTargets } from "../packages/testing/src/bundles";
import { imageFiles } from "./image-files";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * node:22-bookworm-slim, uncompressed on disk (`docker images`, linux/amd64): 220 MB, as measured
 * in https://labs.iximiuz.com/tutorials/how-to-choose-nodejs-container-image. The layers the
 * Dockerfile adds besides /app (a user and a group) weigh a few kilobytes.
 */
export const BASE_IMAGE_BYTES = 220 * 1000 ** 2;

export const PROCESS_NAMES = (root: string = ROOT): string[] => buildTargets(root).filter((t) => t.name !== "migrate-cli").map((t) => t.name);

/** Bytes of the files the process's image holds at /app. */
export function runtimeTreeBytes(process: string, root: string = ROOT): number {
  return imageFiles(process, root).reduce((sum, file) => sum + statSync(path.join(root, file)).size, 0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const mb = (bytes: number) => `${(bytes / 1000 ** 2).toFixed(1)} MB`;
  process.stdout.write(`process    /app tree   image (base ${mb(BASE_IMAGE_BYTES)} + tree)\n`);
  for (const name of PROCESS_NAMES()) {
    const tree = runtimeTreeBytes(name);
    process.stdout.write(`${name.padEnd(10)} ${mb(tree).padStart(9)}   ${mb(BASE_IMAGE_BYTES + tree)}\n`);
  }
}
