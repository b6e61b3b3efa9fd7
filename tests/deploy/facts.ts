/**
 * What the manifests must agree with, read from the code wherever the code states it: the
 * processes and topics (packages/topology), what each process's config.ts reads, where its entry
 * point and migrations are, and who may call whom (each service's allow-list, src/rpc/callers.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { generateIdentityKeys, publicKeysSetting } from "../../packages/rpc/src/identity-keys";
import type { CallerPolicy } from "../../packages/rpc/src/caller-policy";
import { FLEET, IDENTITIES, SERVICES, type ServiceName } from "../../packages/topology/src";
import { ROOT } from "./kustomize";
import type { Manifest, PodSpec, WorkloadSpec } from "./manifest-types";

export type ProcessName = ServiceName | "gateway" | typeof FLEET;
/** The mesh: the gateway and the services, in deploy/base, so in every environment. */
export const PROCESSES: readonly ProcessName[] = ["gateway", ...SERVICES];
/** Processes an overlay adds to the base: the sandbox's fleet (production's drivers are real). */
export const SANDBOX_ONLY: readonly ProcessName[] = [FLEET];
/** Every process that has an image and a Deployment somewhere. */
export const ALL_PROCESSES: readonly ProcessName[] = [...PROCESSES, ...SANDBOX_ONLY];
export type Overlay = "sandbox" | "production";
/** The processes an overlay runs. */
export const processesIn = (overlay: Overlay): readonly ProcessName[] => (overlay === "sandbox" ? ALL_PROCESSES : PROCESSES);
/** The team paged for a process: its own, except the fleet, which dispatch's team owns (.github/CODEOWNERS). */
export const teamOf = (name: ProcessName): string => (name === FLEET ? "team-dispatch" : `team-${name}`);

/**
 * Processes that run exactly one pod (`replicas: 1`, no HorizontalPodAutoscaler, no
 * PodDisruptionBudget): the fleet is one simulator, and a second pod would drive its drivers twice.
 * Every other process scales with load.
 */
export const SINGLETONS: readonly ProcessName[] = [FLEET];
export const scales = (name: ProcessName): boolean => !SINGLETONS.includes(name);

/** Processes with a service identity (`<process>-identity`): those scripts/identity-keys.ts makes a key for. */
export const hasIdentity = (name: ProcessName): boolean => (IDENTITIES as readonly string[]).includes(name);

/** Processes that serve RPCs to peers (the services), as opposed to HTTP (the gateway) or nothing (the fleet). */
export const servesRpcs = (name: ProcessName): boolean => (SERVICES as readonly string[]).includes(name);

/** Each service's allow-list, as the service itself checks every RPC against it. */
const CALLERS: Record<ServiceName, CallerPolicy> = Object.fromEntries(
  await Promise.all(
    SERVICES.map(async (name) => [name, ((await import(path.join(ROOT, "services", name, "src", "rpc", "callers.ts"))) as { CALLERS: CallerPolicy }).CALLERS] as const),
  ),
) as Record<ServiceName, CallerPolicy>;

/** The services whose allow-list admits `name` on some RPC. */
export function allowedCalleesOf(name: ProcessName): ServiceName[] {
  return SERVICES.filter((service) => service !== name && CALLERS[service].callers().includes(name as never));
}

/**
 * What a process's network policy lets it reach: the services whose allow-list admits it, plus
 * any whose url its config.ts reads (the gateway reads every service's /readyz, dispatch's too).
 */
export function callsOf(name: ProcessName): ProcessName[] {
  return [...new Set([...allowedCalleesOf(name), ...peersConfigured(name)])].sort();
}

/** The processes, among `among`, that call the process on its serving port (the gateway's public callers aside). */
export const callersOf = (name: ProcessName, among: readonly ProcessName[] = ALL_PROCESSES): ProcessName[] => among.filter((p) => p !== name && callsOf(p).includes(name));

/** Whether the process has a Service: something calls it (the public, for the gateway). */
export const served = (name: ProcessName): boolean => name === "gateway" || callersOf(name).length > 0;

/** The processes whose url the process's config.ts reads: `<SVC>_SERVICE_URL`, and `GATEWAY_URL` (the fleet's drivers' way in). */
export function peersConfigured(name: ProcessName): ProcessName[] {
  return keysIn(configSource(name)).flatMap((key): ProcessName[] => {
    if (key === "GATEWAY_URL") return ["gateway"];
    const peer = /^([A-Z]+)_SERVICE_URL$/.exec(key)?.[1]?.toLowerCase();
    return peer && (SERVICES as readonly string[]).includes(peer) ? [peer as ServiceName] : [];
  });
}

/** The services whose admin listener (`<SVC>_ADMIN_URL`) the process's config.ts reads: the fleet's. */
export function adminPeersOf(name: ProcessName): ServiceName[] {
  return keysIn(configSource(name)).flatMap((key) => {
    const peer = /^([A-Z]+)_ADMIN_URL$/.exec(key)?.[1]?.toLowerCase();
    return peer && (SERVICES as readonly string[]).includes(peer) ? [peer as ServiceName] : [];
  });
}

/** Peers whose url the process's config.ts reads (so its ConfigMap must carry it). */
export const peerUrlKeys = (name: ProcessName): string[] => keysIn(configSource(name)).filter((key) => /^[A-Z]+_SERVICE_URL$/.test(key));

/** The unprivileged uid of the image (Dockerfile USER) and of every pod. */
export const APP_UID = 10001;

/** packages/rpc/src/service.ts and gateway/src/main.ts give a drain SHUTDOWN_GRACE_MS + 5 s before exiting. */
export const DRAIN_ALLOWANCE_MS = 5_000;

const fakeIdentity = generateIdentityKeys(["gateway", ...SERVICES]);

/** Plausible values for every ConfigMap key a container references one by one (not created by kustomize). */
export const FAKE_CONFIG_VALUES: Record<string, string> = { SERVICE_IDENTITY_PUBLIC_KEYS: publicKeysSetting(fakeIdentity) };

/** Plausible values for every Secret key, so config.ts can parse what a pod would see. */
export const FAKE_SECRET_VALUES: Record<string, string> = {
  SERVICE_IDENTITY_PRIVATE_KEY: fakeIdentity.gateway!.privateKey,
  DATABASE_URL: "postgresql://tawsil:not-a-password@postgres.invalid:5432/tawsil_test",
  SIGNING_KEY_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
  SIGNING_KEY_DECRYPTION_KEYS: Buffer.alloc(32, 13).toString("base64"),
  TRACKING_LINK_SECRET: Buffer.alloc(32, 8).toString("base64"),
  CURSOR_SECRET: Buffer.alloc(32, 9).toString("base64"),
  WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 10).toString("base64"),
  WEBHOOK_SECRET_DECRYPTION_KEYS: Buffer.alloc(32, 12).toString("base64"),
  S3_ACCESS_KEY_ID: "AKIAEXAMPLEEXAMPLE00",
  S3_SECRET_ACCESS_KEY: "not-a-secret-access-key",
  MEDIA_DOWNLOAD_SECRET: Buffer.alloc(32, 11).toString("base64"),
  RATE_LIMIT_REDIS_URL: "rediss://:not-a-password@redis.invalid:6379",
  // The key of the User Operator's Secret for a KafkaUser.
  password: "not-a-kafka-password",
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

/** Settings that are credentials: the database url, a Redis url (it carries the password), any key, key id, secret or password of its own, and its identity key. */
export function secretKeysOf(name: ProcessName): string[] {
  const own = keysIn(configSource(name)).filter((key) => /(_KEYS?$|_KEY_ID$|SECRET|PASSWORD|REDIS_URL$)/.test(key));
  return [...(usesDatabase(name) ? ["DATABASE_URL"] : []), ...own, ...(hasIdentity(name) ? [IDENTITY_KEY] : []), ...(usesKafka(name) ? [KAFKA_PASSWORD] : [])].sort();
}

/** Every Kafka process's SCRAM password, from the Secret the User Operator writes for its KafkaUser (`<process>-kafka`, key `password`). */
export const KAFKA_PASSWORD = "KAFKA_SASL_PASSWORD";

/** Where a process's credential comes from: its identity Secret, its Kafka user's Secret, or its own `<process>-secrets` under the setting's name. */
export function secretRefOf(name: ProcessName, setting: string): { name: string; key: string } {
  if (setting === IDENTITY_KEY) return { name: `${name}-identity`, key: IDENTITY_KEY };
  if (setting === KAFKA_PASSWORD) return { name: `${name}-kafka`, key: "password" };
  return { name: `${name}-secrets`, key: setting };
}

/** Every process's signing key (hasIdentity), in a Secret of its own (`<process>-identity`), apart from its other credentials. */
export const IDENTITY_KEY = "SERVICE_IDENTITY_PRIVATE_KEY";

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
