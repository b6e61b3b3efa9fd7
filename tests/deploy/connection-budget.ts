/**
 * PostgreSQL sessions a rendered overlay may hold at once on the one managed server, counted from
 * the manifests (pool size, HPA maximum, rollout surge, migration Jobs) and from the code (the
 * sessions each process opens beside its pool). deploy/README.md states the result per overlay.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { find, ofKind } from "./facts";
import { ROOT } from "./kustomize";
import type { Manifest } from "./manifest-types";

/**
 * Calls that each hold a session of their own for as long as the process runs (or, for the
 * retention job, once per interval, at any moment): node-postgres Clients apart from the pool.
 */
const SESSION_OPENERS: readonly { pattern: RegExp; what: string }[] = [
  { pattern: /\blistenForNotifications\(/g, what: "a LISTEN session (packages/db/src/notifications.ts)" },
  { pattern: /\bstartOutboxRelay\(/g, what: "the outbox relay's LISTEN session (packages/events/src/start-relay.ts)" },
  { pattern: /\bstartRetention\(/g, what: "the retention job's session, which holds its advisory lock (packages/retention)" },
  { pattern: /\.elect\(this,/g, what: "a leader-lock session (services/dispatch/src/infra/leader-session.ts)" },
];

function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.includes(".test.") && !entry.parentPath.includes("generated"))
    .map((entry) => readFileSync(path.join(entry.parentPath, entry.name), "utf8"));
}

/** Sessions one pod of the service opens beside its pool, found in its sources. */
export function sessionsBesidePool(service: string): number {
  const sources = sourcesOf(path.join(ROOT, "services", service, "src"));
  return SESSION_OPENERS.reduce((sum, { pattern }) => sum + sources.reduce((n, source) => n + (source.match(pattern)?.length ?? 0), 0), 0);
}

export interface ServiceBudget {
  service: string;
  pool: number;
  besidePool: number;
  maxReplicas: number;
  surge: number;
  /** (pool + beside) x (maxReplicas + surge) + 1 for the migration Job. */
  peak: number;
}

/** maxSurge as pods at the HPA maximum: a percentage rounds up, as Kubernetes rounds it. */
function surgeOf(deployment: Manifest, replicas: number): number {
  const surge = (deployment.spec as { strategy?: { rollingUpdate?: { maxSurge?: number | string } } }).strategy?.rollingUpdate?.maxSurge ?? "25%";
  return typeof surge === "number" ? surge : Math.ceil((replicas * Number.parseFloat(surge)) / 100);
}

/**
 * At the HPA maximum a rollout adds the surge pods while every old pod still holds its sessions;
 * the migration Job holds one session meanwhile. A pod's migration wait (initContainer) ends before
 * its server opens anything, so it adds nothing to the pod's own count.
 */
export function serviceBudget(manifests: readonly Manifest[], service: string): ServiceBudget {
  const pool = Number(find(manifests, "ConfigMap", `${service}-config`).data?.DATABASE_POOL_SIZE);
  const maxReplicas = (find(manifests, "HorizontalPodAutoscaler", service).spec as { maxReplicas: number }).maxReplicas;
  const surge = surgeOf(find(manifests, "Deployment", service), maxReplicas);
  const besidePool = sessionsBesidePool(service);
  const jobs = ofKind(manifests, "Job").filter((job) => job.metadata.name === `${service}-migrate`).length;
  return { service, pool, besidePool, maxReplicas, surge, peak: (pool + besidePool) * (maxReplicas + surge) + jobs };
}
