/**
 * The alerts every process shares (issue 32 point 7), written once here and generated into each
 * process's PrometheusRule (deploy/base/alerts/<process>.yaml) and runbook (its README.md), between
 * BEGIN/END markers, so each alert keeps the house pattern: named after its process, labelled for its
 * team, linking a section of its README. Edit this file, then `make alerts` (`make check-alerts` fails when stale);
 * tests/deploy/alerts.test.ts fails while a file differs from what this writes.
 *
 *   <Process>PodsNotReady        a share of the Deployment's pods not available (partial loss)
 *   <Process>CrashLooping        the process's container restarting or in CrashLoopBackOff
 *   <Process>MigrationFailed     the service's migration Job failed (services with migrations only)
 *   <Process>AtMaxReplicas       the HorizontalPodAutoscaler at its maxReplicas
 *   <Process>ScrapeTargetAbsent  Prometheus scrapes no healthy target of the process (the PodMonitor's
 *                                job label is the pod's app.kubernetes.io/name: jobLabel)
 *
 * Parked events (the consumers' dead letters) are alerted by <Process>EventsParked, written by hand
 * in the three consuming services' rule files.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { SERVICES, type ServiceName } from "../packages/topology/src";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export type ProcessName = ServiceName | "gateway";
export const PROCESSES: readonly ProcessName[] = ["gateway", ...SERVICES];

export interface SharedAlert {
  alert: string;
  expr: string;
  for: string;
  severity: "page" | "ticket";
  summary: string;
  /** The runbook section's body (markdown), after its `### <alert>` heading. */
  runbook: string;
}

/** Share of a Deployment's desired replicas that may be unavailable before PodsNotReady fires. */
export const NOT_READY_SHARE = 0.25;
/** Restarts of one pod's container within 15 minutes that count as a crash loop. */
export const CRASH_RESTARTS = 2;

export const pascal = (name: string): string => `${name[0]?.toUpperCase()}${name.slice(1)}`;
export const sourceDir = (name: ProcessName): string => (name === "gateway" ? "gateway" : path.join("services", name));
/** Whether the service runs a migration Job (`<service>-migrate`): it has committed migrations. */
export const migrates = (name: ProcessName): boolean => name !== "gateway" && existsSync(path.join(ROOT, "services", name, "prisma", "migrations"));

/** A port of the process's ConfigMap in deploy/base/<process>.yaml (PORT, METRICS_PORT). */
function configuredPort(name: ProcessName, key: "PORT" | "METRICS_PORT"): string {
  const port = new RegExp(`^\\s+${key}: "(\\d+)"$`, "m").exec(readFileSync(path.join(ROOT, "deploy", "base", `${name}.yaml`), "utf8"))?.[1];
  if (!port) throw new Error(`deploy/base/${name}.yaml has no ${key}`);
  return port;
}

/** The shared alerts of one process, in the order they are written. */
export function sharedAlerts(name: ProcessName): SharedAlert[] {
  const P = pascal(name);
  const pods = `app.kubernetes.io/name=${name},app.kubernetes.io/component=server`;
  const port = configuredPort(name, "METRICS_PORT");
  const serving = configuredPort(name, "PORT");
  const alerts: SharedAlert[] = [
    {
      alert: `${P}PodsNotReady`,
      expr: [
        `(kube_deployment_spec_replicas{deployment="${name}"} - kube_deployment_status_replicas_available{deployment="${name}"})`,
        `  / kube_deployment_spec_replicas{deployment="${name}"} >= ${NOT_READY_SHARE}`,
        `and kube_deployment_status_replicas_available{deployment="${name}"} > 0`,
      ].join("\n"),
      for: "15m",
      severity: "ticket",
      summary: `At least ${NOT_READY_SHARE * 100}% of ${name}'s pods, but not all, have been unavailable for 15 minutes`,
      runbook: [
        `At least ${NOT_READY_SHARE * 100}% of the Deployment's desired pods have not been available for 15 minutes while others serve (all of them down is ${P}ReadinessDown): the rest carry the load, with less headroom and, in production, less spread across nodes. A rollout never causes it on its own (maxUnavailable 0: an old pod goes only once its replacement is ready), a rollout whose new pods never become ready does.`,
        "",
        "```sh",
        `kubectl -n $NS get pods -l ${pods} -o wide          # which pods, on which nodes, READY 0/1 or Pending`,
        `kubectl -n $NS rollout status deploy/${name} --timeout=10s   # a rollout stuck on new pods?`,
        `kubectl -n $NS describe pod <pod>                    # Events: readiness probe failures, FailedScheduling`,
        "```",
        "",
        `A pod \`Pending\` with FailedScheduling: production's hard spread (max skew 1 across nodes, deploy/README.md) keeps it Pending rather than put it where the process's pods would be uneven, so one node short of CPU or memory, or too few nodes (three at least), blocks it: \`kubectl describe node\` for allocated resources, then add capacity. A pod running but not ready: its \`/readyz\` names the dependency it cannot reach (\`kubectl -n $NS port-forward pod/<pod> ${serving}:${serving}\` then \`curl -s 127.0.0.1:${serving}/readyz\`, see ${P}ReadinessDown); if only pods of one node fail, cordon it (\`kubectl cordon <node>\`) and delete them. A new revision's pods that never become ready: \`kubectl -n $NS rollout undo deploy/${name}\`. Restarting pods: see ${P}CrashLooping.`,
      ].join("\n"),
    },
    {
      alert: `${P}CrashLooping`,
      expr: [
        `max by (pod) (max_over_time(kube_pod_container_status_waiting_reason{container="${name}", reason="CrashLoopBackOff"}[5m])) > 0`,
        `or sum by (pod) (increase(kube_pod_container_status_restarts_total{container="${name}"}[15m])) > ${CRASH_RESTARTS}`,
      ].join("\n"),
      for: "5m",
      severity: "ticket",
      summary: `A ${name} pod's container is crash-looping or has restarted over ${CRASH_RESTARTS} times in 15 minutes`,
      runbook: [
        `A pod's \`${name}\` container has been in CrashLoopBackOff, or restarted more than ${CRASH_RESTARTS} times in 15 minutes, for 5 minutes (the alert's \`pod\` label names it). Each restart drops that pod's in-flight requests; if every pod does it, ${P}ReadinessDown follows. Why the last run ended:`,
        "",
        "```sh",
        `kubectl -n $NS get pods -l ${pods}     # RESTARTS`,
        `kubectl -n $NS get pod <pod> -o jsonpath='{.status.containerStatuses[?(@.name=="${name}")].lastState.terminated}{"\\n"}'`,
        `kubectl -n $NS logs <pod> -c ${name} --previous | tail -50`,
        `kubectl -n $NS describe pod <pod> | grep -A3 -i 'liveness\\|oomkilled\\|back-off'`,
        "```",
        "",
        `\`OOMKilled\`: the container outgrew its memory limit (the Deployment's \`resources.limits.memory\`); look for a leak (\`process_resident_memory_bytes{service="${name}"}\` climbing between restarts) before raising it. Exit code 1 right after start: the log's last lines say why (a ConfigError names the setting; a missing Secret key shows as CreateContainerConfigError instead). Killed by the liveness probe ("Liveness probe failed" events): the process stopped answering it for \`failureThreshold\` periods, an event loop stalled (CPU throttling at the limit, a hot loop). If a new revision crashes, \`kubectl -n $NS rollout undo deploy/${name}\`: its old pods are still serving (maxUnavailable 0).`,
      ].join("\n"),
    },
  ];
  if (migrates(name)) {
    alerts.push({
      alert: `${P}MigrationFailed`,
      expr: `kube_job_failed{job_name="${name}-migrate", condition="true"} > 0`,
      for: "1m",
      severity: "page",
      summary: `The ${name}-migrate Job failed: ${name}'s rollout waits for a schema it cannot get`,
      runbook: [
        `The migration Job \`${name}-migrate\` failed (its pods failed \`backoffLimit\` + 1 times, or it ran past \`activeDeadlineSeconds\`, 600 s). The rollout is stuck, not down: the new pods wait in their \`migrate\` initContainer (which gives up after 600 s and restarts), the old ones keep serving (maxUnavailable 0). Each migration runs in a transaction and is rolled back when it fails, so the schema is the previous release's.`,
        "",
        "```sh",
        `kubectl -n $NS describe job ${name}-migrate | tail -20     # BackoffLimitExceeded or DeadlineExceeded`,
        `kubectl -n $NS logs job/${name}-migrate                   # "Migration <name> failed and was rolled back: <reason>"`,
        "```",
        "",
        `A reason the migration itself causes (a constraint the data violates, a lock it could not take behind a long transaction): roll the Deployment back with \`kubectl -n $NS rollout undo deploy/${name}\`, delete the Job (\`kubectl -n $NS delete job ${name}-migrate\`) and fix the migration in a new release. A passing cause (the database unreachable, a connection limit): fix it, then run the Job again as deploy/README.md's "Each deploy, in order" does (delete the Job, \`kubectl apply -k $OVERLAY\`, wait for it). "Found failed migrations in the target database" means an earlier failure outside a transaction: resolve it in \`_prisma_migrations\` with the migration's author before re-running. The alert clears when the Job is deleted (or completes); a failed Job is otherwise kept 24 h (\`ttlSecondsAfterFinished\`).`,
      ].join("\n"),
    });
  }
  alerts.push(
    {
      alert: `${P}AtMaxReplicas`,
      expr: [
        `kube_horizontalpodautoscaler_status_current_replicas{horizontalpodautoscaler="${name}"}`,
        `  >= on (namespace, horizontalpodautoscaler) kube_horizontalpodautoscaler_spec_max_replicas{horizontalpodautoscaler="${name}"}`,
      ].join("\n"),
      for: "30m",
      severity: "ticket",
      summary: `${name}'s HorizontalPodAutoscaler has been at its maxReplicas for 30 minutes`,
      runbook: [
        `The HorizontalPodAutoscaler has run \`${name}\` at its \`maxReplicas\` for 30 minutes: it would add pods and may not, so more load shows as latency (${P}HighLatency, event-loop lag) rather than as more pods.`,
        "",
        "```sh",
        `kubectl -n $NS get hpa ${name}             # TARGETS: CPU against the 70% target, REPLICAS against MAXPODS`,
        `kubectl -n $NS describe hpa ${name} | tail -15`,
        `kubectl -n $NS top pods -l ${pods}`,
        "```",
        "",
        `Compare the request rate on the dashboard with last week's: real growth means raising \`maxReplicas\` in the overlay (production patches every HPA), but count the database connections first (\`DATABASE_POOL_SIZE\` times \`maxReplicas\` for every service must fit PostgreSQL's \`max_connections\`, deploy/README.md). CPU high at an ordinary rate means a regression or a hot loop: profile one pod (README.md, \`NODE_OPTIONS\`) or roll back the last release (\`kubectl -n $NS rollout undo deploy/${name}\`).`,
      ].join("\n"),
    },
    {
      alert: `${P}ScrapeTargetAbsent`,
      expr: `absent(up{job="${name}"} == 1)`,
      for: "10m",
      severity: "ticket",
      summary: `Prometheus has scraped no ${name} pod for 10 minutes: ${name}'s other alerts are blind`,
      runbook: [
        `Prometheus has had no healthy scrape target with \`job="${name}"\` for 10 minutes (\`up\` absent or 0): the alerts on ${name}'s own metrics (all but those on kube-state-metrics and the Kafka Exporter) cannot fire meanwhile. The job is the pods' \`app.kubernetes.io/name\` (the PodMonitor's \`jobLabel\`). With no pod running at all, ${P}ReadinessDown fires too: start there.`,
        "",
        "```sh",
        `kubectl -n $NS get podmonitor ${name} -o yaml     # present, selecting the pods' labels, port metrics`,
        `kubectl -n $NS get pods -l ${pods}`,
        `kubectl -n $NS port-forward deploy/${name} ${port}:${port} & sleep 2; curl -s 127.0.0.1:${port}/metrics | head -5; kill %1`,
        "```",
        "",
        `The pods answer /metrics but Prometheus has no target: its \`podMonitorSelector\` or \`podMonitorNamespaceSelector\` does not select this PodMonitor or the namespace (\`kubectl get prometheus -A -o yaml\`), or the operator rejected the PodMonitor (its logs). A target that is down (Prometheus's /targets page gives the error): a timeout means the NetworkPolicy does not admit Prometheus to port ${port} (deploy/components/network-policies), a refused connection means the process did not open \`METRICS_PORT\`.`,
      ].join("\n"),
    },
  );
  return alerts;
}

const RULES_BEGIN = "        # BEGIN shared alerts, generated by scripts/alerts.ts: edit there";
const RULES_END = "        # END shared alerts";
const README_BEGIN = "<!-- BEGIN shared alerts, generated by scripts/alerts.ts: edit there -->";
const README_END = "<!-- END shared alerts -->";

const indent = (text: string, by: string) => text.split("\n").map((line) => `${by}${line}`).join("\n");

/** The generated rules of one process, as they sit at the end of its rules list. */
export function rulesBlock(name: ProcessName): string {
  const rules = sharedAlerts(name).map((a) => [
    `        - alert: ${a.alert}`,
    "          expr: |-",
    indent(a.expr, "            "),
    `          for: ${a.for}`,
    "          labels:",
    `            severity: ${a.severity}`,
    `            team: team-${name}`,
    "          annotations:",
    `            summary: ${JSON.stringify(a.summary)}`,
    `            runbook_url: https://github.com/tawsil/tawsil/blob/main/${sourceDir(name)}/README.md#${a.alert.toLowerCase()}`,
  ].join("\n"));
  return [RULES_BEGIN, ...rules, RULES_END].join("\n");
}

/** The generated runbook sections of one process. */
export function readmeBlock(name: ProcessName): string {
  return [README_BEGIN, "", ...sharedAlerts(name).flatMap((a) => [`### ${a.alert}`, "", a.runbook, ""]), README_END].join("\n");
}

/** `text` with the block between `begin` and `end` replaced, or inserted by `insert` when absent. */
function replaceBlock(text: string, begin: string, end: string, block: string, insert: (text: string) => string): string {
  const from = text.indexOf(begin);
  if (from < 0) return insert(text);
  const to = text.indexOf(end, from);
  if (to < 0) throw new Error(`"${begin}" without "${end}"`);
  return text.slice(0, from) + block + text.slice(to + end.length);
}

export const rulesFile = (name: ProcessName): string => path.join(ROOT, "deploy", "base", "alerts", `${name}.yaml`);
export const readmeFile = (name: ProcessName): string => path.join(ROOT, sourceDir(name), "README.md");

/** The rule file as this script writes it: the hand-written rules, then the shared ones. */
export function generatedRules(name: ProcessName): string {
  const text = readFileSync(rulesFile(name), "utf8");
  return replaceBlock(text, RULES_BEGIN, RULES_END, rulesBlock(name), (t) => `${t.trimEnd()}\n${rulesBlock(name)}\n`);
}

/** The README as this script writes it: the shared runbook sections after the hand-written alerts' sections. */
export function generatedReadme(name: ProcessName): string {
  const text = readFileSync(readmeFile(name), "utf8");
  return replaceBlock(text, README_BEGIN, README_END, readmeBlock(name), (t) => {
    const runbook = t.indexOf("\n## Runbook\n");
    if (runbook < 0) throw new Error(`${sourceDir(name)}/README.md has no "## Runbook"`);
    // After the last alert section: before the next section, or the Runbook's first heading that is no alert's.
    const next = /\n(## |### (?!\w+\n))/g;
    next.lastIndex = runbook + 1;
    const at = next.exec(t)?.index ?? t.length;
    return `${t.slice(0, at).trimEnd()}\n\n${readmeBlock(name)}\n${at < t.length ? `\n${t.slice(at + 1)}` : ""}`;
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // --check (make check-alerts): list the files that differ from what this writes, and fail.
  const check = process.argv.includes("--check");
  const stale: string[] = [];
  for (const name of PROCESSES) {
    for (const [file, text] of [[rulesFile(name), generatedRules(name)], [readmeFile(name), generatedReadme(name)]] as const) {
      if (readFileSync(file, "utf8") === text) continue;
      if (check) stale.push(path.relative(ROOT, file));
      else writeFileSync(file, text);
    }
  }
  if (stale.length > 0) {
    process.stderr.write(`stale shared alerts (run make alerts): ${stale.join(", ")}\n`);
    process.exit(1);
  }
}
