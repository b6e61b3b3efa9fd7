/** Where the repository's Prisma clients come from: scripts/prisma-generate.ts generates each, and the schema checks read each. */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** Every prisma.config.ts of the repository, relative to the root, in a stable order. */
export function prismaConfigs(root: string = ROOT): string[] {
  const services = readdirSync(path.join(root, "services"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join("services", entry.name, "prisma.config.ts"));
  const fixtures = [path.join("packages", "events", "test", "prisma", "prisma.config.ts")];
  return [...services, ...fixtures].filter((config) => existsSync(path.join(root, config))).sort();
}
