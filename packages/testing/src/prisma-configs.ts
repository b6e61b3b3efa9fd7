/** Where the repository's Prisma clients come from: scripts/prisma-generate.ts generates each, and the schema checks read each. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
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

/**
 * The folder each config's client is generated into, relative to the root: its schema (the
 * config's `schema`, relative to the config) names it in the generator's `output` (relative to the
 * schema). Generated, never committed.
 */
export function prismaClientDirs(root: string = ROOT): string[] {
  return prismaConfigs(root).map((config) => {
    const schema = path.join(path.dirname(config), quotedSetting(root, config, /\bschema:\s*"([^"]+)"/));
    return path.join(path.dirname(schema), quotedSetting(root, schema, /\boutput\s*=\s*"([^"]+)"/));
  });
}

function quotedSetting(root: string, file: string, pattern: RegExp): string {
  const value = pattern.exec(readFileSync(path.join(root, file), "utf8"))?.[1];
  if (!value) throw new Error(`${file} has no ${pattern.source}`);
  return value;
}
