/**
 * What the manifests must agree with, read from the code wherever the code states it: the
 * processes and topics (scripts/mesh.ts), what each process's config.ts reads, where its entry
 * point and migrations are. Only the call graph is copied by hand, from architecture.md.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { SERVICES, type ServiceName } from "../../scripts/mesh";
import { ROOT } from "./kustomize";
import type { Manifest, PodSpec, WorkloadSpec } from "./manifest-types";

export type ProcessName = ServiceName | "gateway";
export const PROCESSES: readonly ProcessName[] = ["gateway", ...SERVICES];

/** Connect calls architecture.md draws: caller -> callees. */
const ARCHITECTURE_CALLS: Partial<Record<ProcessName, readonly ProcessName[]>> = {
  gateway: SERVICES,
  shipment: ["pricing", "merchant", "dispatch"],
  dispatch: ["shipment"],
};

/** The peers a process calls: those architecture.md draws plus every `<SVC>_SERVICE_URL` its config.ts reads. */
export function callsOf(name: ProcessName): ProcessName[] {
  const read = keysIn(configSource(name)).flatMap((key) => {
    const peer = /^([A-Z]+)_SERVICE_URL$/.exec(key)?.[1]?.toLowerCase();
    return peer && (SERVICES as readonly string[]).includes(peer) ? [peer as ServiceName] : [];
  });
  return [...new Set([...(ARCHITECTURE_CALLS[name] ?? []), ...read])].sort();
}

/** Peers whose url the process's config.ts reads (so its ConfigMap must carry it). */
export const peerUrlKeys = (name: ProcessName): string[] => keysIn(configSource(name)).filter((key) => /^[A-Z]+_SERVICE_URL$/.test(key));

/** The unprivileged uid of the image (Dockerfile USER) and of every pod. */
export const APP_UID = 10001;

/** packages/rpc/src/service.ts and gateway/src/main.ts give a drain SHUTDOWN_GRACE_MS + 5 s before exiting. */
export const DRAIN_ALLOWANCE_MS = 5_000;

/** Plausible values for every Secret key, so config.ts can parse what a pod would see. */
export const FAKE_SECRET_VALUES: Record<string, string> = {
  DATABASE_URL: "postgresql://tawsil:not-a-password@postgres.invalid:5432/tawsil_test",
  SIGNING_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  TRACKING_LINK_SECRET: Buffer.alloc(32, 8).toString("base64"),
  CURSOR_SECRET: Buffer.alloc(32, 9).toString("base64"),
  WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 10).toString("base64"),
};

export function sourceDir(name: ProcessName): string {
  return name === "gateway" ? "gateway" : path.join("services", name);
}

function configSource(name: ProcessName): string {
  return readFileSync(path.join(ROOT, sourceDir(name), "src", "config.ts"), "utf8");
}

export const usesKafka = (name: ProcessName): boolean => /\bkafkaEnv\b/.test(configSource(name));
export const usesDatabase = (name: ProcessName): boolean => /\bdatabaseEnv\b/.test(configSource(name));

const keysIn = (source: string): string[] => [...source.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1] as string);

/** Every SCREAMING_SNAKE key the process's config schema (its config.ts and the shared env) names. */
export function configKeys(name: ProcessName): Set<string> {
  const common = readFileSync(path.join(ROOT, "packages", "config", "src", "common.ts"), "utf8");
  return new Set([...keysIn(configSource(name)), ...keysIn(common)]);
}

/** Settings that are credentials: the database url, and any key, secret or password of its own. */
export function secretKeysOf(name: ProcessName): string[] {
  const own = keysIn(configSource(name)).filter((key) => /(_KEY$|SECRET|PASSWORD)/.test(key));
  return [...(usesDatabase(name) ? ["DATABASE_URL"] : []), ...own].sort();
}

/** The process's own readConfig, which fails fast on anything missing or malformed. */
export async function readConfigOf(name: ProcessName): Promise<(env: Record<string, string | undefined>) => unknown> {
  const module = (await import(path.join(ROOT, sourceDir(name), "src", "config.ts"))) as { readConfig: (env: Record<string, string | undefined>) => unknown };
  return module.readConfig;
}

/** Services whose database schema is managed by committed migrations. */
export const SERVICES_WITH_MIGRATIONS = SERVICES.filter((name) => existsSync(path.join(ROOT, "services", name, "prisma", "migrations")));

export function find(manifests: readonly Manifest[], kind: string, name: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind && m.metadata.name === name);
  if (found.length !== 1) throw new Error(`expected exactly one ${kind}/${name}, found ${found.length}`);
  return found[0] as Manifest;
}

export const ofKind = (manifests: readonly Manifest[], kind: string): Manifest[] => manifests.filter((m) => m.kind === kind);

export const workload = (m: Manifest): WorkloadSpec => m.spec as WorkloadSpec;
export const podSpec = (m: Manifest): PodSpec => workload(m).template.spec;
