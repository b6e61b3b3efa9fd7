/**
 * Each process's PrometheusRule (deploy/base/alerts/<process>.yaml; the sandbox fleet's in deploy/overlays/sandbox): alerts named after and owned
 * by their process, on metrics that exist, each with a runbook section in the process's README,
 * and every runbook section of a README backed by a real alert.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parser } from "@prometheus-io/lezer-promql";
import { describe, expect, it } from "vitest";
import { ALL_PROCESSES, find, ofKind, PROCESSES, podSpec, servesRpcs, sourceDir, teamOf, type ProcessName } from "./facts";
import { DEPLOY, ROOT, overlayOwnObjects, render } from "./kustomize";

interface Rule { alert: string; expr: string; for: string; labels: Record<string, string>; annotations: Record<string, string> }
interface RuleSpec { groups: { name: string; rules: Rule[] }[] }

const base = render(path.join(DEPLOY, "base"));
/** The base's rules and the sandbox's own (its fleet's). */
const written = [...base, ...overlayOwnObjects("sandbox")];
/** sandbox-fleet -> SandboxFleet. */
const pascal = (name: string) => name.split("-").map((word) => `${word[0]?.toUpperCase()}${word.slice(1)}`).join("");
const readmeOf = (name: ProcessName) => readFileSync(path.join(ROOT, sourceDir(name), "README.md"), "utf8");
const runbookHeadings = (readme: string) => [...readme.matchAll(/^### (\w+)$/gm)].map((m) => m[1] as string);

/** Metrics our processes export: the RPC histogram, the gateway's HTTP histogram, revocation feed and rate-limit store errors, the outbox relay's lag and the webhook's deliveries. */
const OWN_METRICS = [
  ...["packages/rpc/src/metrics.ts", "gateway/src/request/metrics.ts", "gateway/src/consumers/access-revocations.ts", "gateway/src/rate-limit/redis-limit-store.ts", "services/webhook/src/infra/metrics.ts"].flatMap((file) =>
    [...readFileSync(path.join(ROOT, file), "utf8").matchAll(/name: "(\w+)"/g)].map((m) => m[1] as string)),
  ...[...readFileSync(path.join(ROOT, "packages/events/src/outbox-lag.ts"), "utf8").matchAll(/OUTBOX_LAG_METRIC = "(\w+)"/g)].map((m) => m[1] as string),
  ...[...readFileSync(path.join(ROOT, "packages/events/src/idempotent-consumer.ts"), "utf8").matchAll(/PARKED_EVENTS_METRIC = "(\w+)"/g)].map((m) => m[1] as string),
  ...[...readFileSync(path.join(ROOT, "packages/retention/src/retention-metrics.ts"), "utf8").matchAll(/^ {2}\w+: "(\w+)"/gm)].map((m) => m[1] as string),
];
/** kube-state-metrics' series the alerts read (v2 names: https://github.com/kubernetes/kube-state-metrics/tree/main/docs/metrics). */
const KUBE_STATE_METRICS = [
  "kube_deployment_spec_replicas", "kube_deployment_status_replicas_available",
  "kube_pod_container_status_restarts_total", "kube_pod_container_status_waiting_reason",
  "kube_job_failed",
  "kube_horizontalpodautoscaler_status_current_replicas", "kube_horizontalpodautoscaler_spec_max_replicas",
];
/** Exporters the alerts may rely on: prom-client's Node defaults, kube-state-metrics, Strimzi's Kafka Exporter, and Prometheus's own `up` of each target. */
const EXTERNAL_METRIC = new RegExp(`^(nodejs_\\w+|kafka_consumergroup_lag|up|${KUBE_STATE_METRICS.join("|")})$`);
const PROMQL_WORDS = new Set(["sum", "rate", "by", "le", "max", "histogram_quantile", "outcome", "status_code", "table", "increase", "reason",
  "and", "or", "on", "absent", "max_over_time", "pod", "namespace", "horizontalpodautoscaler"]);

/** The PromQL syntax errors of an expression, as Prometheus's own grammar (lezer-promql, the one its UI uses) finds them. */
function promqlErrors(expr: string): string[] {
  const errors: string[] = [];
  parser.parse(expr).iterate({ enter: (node) => { if (node.type.isError) errors.push(`at ${node.from}: "${expr.slice(Math.max(0, node.from - 10), node.to + 10)}"`); } });
  return errors;
}

/** The metric names an expression selects (each vector selector's name, or its __name__ matcher). */
function selectedMetrics(expr: string): string[] {
  const names: string[] = [];
  parser.parse(expr).iterate({ enter: (node) => {
    if (node.name === "VectorSelector") {
      const id = node.node.getChild("Identifier");
      if (id) names.push(expr.slice(id.from, id.to));
    }
  } });
  return names;
}

/** Consumer groups an IdempotentConsumer of the process commits offsets under (`..._GROUP = "..."`). */
function consumerGroupsOf(name: ProcessName): string[] {
  const dir = path.join(ROOT, sourceDir(name), "src");
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.includes("generated"));
  return files.flatMap((f) => [...readFileSync(path.join(dir, f), "utf8").matchAll(/_GROUP = "([\w.-]+)"/g)].map((m) => m[1] as string));
}

/** Whether the process's main starts an outbox relay, and so must export its lag. */
function relaysOutbox(name: ProcessName): boolean {
  const main = readFileSync(path.join(ROOT, sourceDir(name), "src", "main.ts"), "utf8");
  if (!main.includes("startOutboxRelay(")) return false;
  const call = main.slice(main.indexOf("startOutboxRelay("), main.indexOf("\n  });", main.indexOf("startOutboxRelay(")));
  expect(call, `${name} passes its /metrics registry to startOutboxRelay`).toMatch(/\bregistry: /);
  return true;
}

describe("the PromQL check", () => {
  it("finds a syntax error and reads metric names as Prometheus does", () => {
    expect(promqlErrors('sum(rate(up{job="x"}[5m]) > 1')).not.toEqual([]);
    expect(promqlErrors('max by (pod) (x{a="b"}) > 0\nor absent(up{job="x"} == 1)')).toEqual([]);
    expect(selectedMetrics('a{x="y"} / on (n) b and sum(rate(c[5m]))')).toEqual(["a", "b", "c"]);
  });
});

describe.each(ALL_PROCESSES)("alerts of %s", (name) => {
  const rules = (find(written, "PrometheusRule", `${name}-alerts`).spec as RuleSpec).groups.flatMap((g) => g.rules);

  it("are named after it, labelled for its team, and link a runbook section of its README", () => {
    expect(rules.length).toBeGreaterThan(0);
    const headings = runbookHeadings(readmeOf(name));
    for (const rule of rules) {
      expect(rule.alert).toMatch(new RegExp(`^${pascal(name)}[A-Z]\\w+$`));
      expect(rule.labels).toEqual({ severity: expect.stringMatching(/^(page|ticket)$/), team: teamOf(name) });
      expect(rule.annotations.runbook_url).toBe(`https://github.com/tawsil/tawsil/blob/main/${sourceDir(name)}/README.md#${rule.alert.toLowerCase()}`);
      expect(headings, `${sourceDir(name)}/README.md has no "### ${rule.alert}"`).toContain(rule.alert);
      expect(rule.for).toMatch(/^\d+m$/);
    }
  });

  it("have a runbook entry in its README only for alerts that exist", () => {
    expect(runbookHeadings(readmeOf(name)).sort()).toEqual(rules.map((r) => r.alert).sort());
  });

  it("watch this process only, on metrics that something exports", () => {
    for (const rule of rules) {
      const own = [`service="${name}"`, `deployment="${name}"`, `container="${name}"`, `job_name="${name}-migrate"`, `horizontalpodautoscaler="${name}"`, `job="${name}"`]
        .some((selector) => rule.expr.includes(selector)) ||
        consumerGroupsOf(name).some((group) => rule.expr.includes(`consumergroup="${group}"`));
      expect(own, rule.alert).toBe(true);
      const metrics = [...rule.expr.replace(/\{[^}]*\}|\[[^\]]*\]/g, "").matchAll(/\b([a-z_][a-z0-9_]*)\b/g)].map((m) => m[1] as string).filter((w) => !PROMQL_WORDS.has(w));
      for (const metric of metrics) expect(OWN_METRICS.some((own) => metric.startsWith(own)) || EXTERNAL_METRIC.test(metric), `${rule.alert}: ${metric}`).toBe(true);
      // And as the grammar reads it, not only as the regex above splits words.
      expect(selectedMetrics(rule.expr).length, rule.alert).toBeGreaterThan(0);
      for (const metric of selectedMetrics(rule.expr)) expect(OWN_METRICS.some((own) => metric.startsWith(own)) || EXTERNAL_METRIC.test(metric), `${rule.alert}: ${metric}`).toBe(true);
    }
  });

  it("are valid PromQL, by Prometheus's own grammar", () => {
    for (const rule of rules) expect(promqlErrors(rule.expr), `${rule.alert}: ${rule.expr}`).toEqual([]);
  });

  it("cover readiness, errors and latency of its RPCs, and the lag of each consumer group it commits", () => {
    const alerts = rules.map((r) => r.alert);
    expect(alerts).toContain(`${pascal(name)}ReadinessDown`);
    if (servesRpcs(name)) expect(alerts).toEqual(expect.arrayContaining([`${pascal(name)}HighErrorRate`, `${pascal(name)}HighLatency`]));
    for (const group of consumerGroupsOf(name)) expect(rules.some((r) => r.expr.includes(`consumergroup="${group}"`)), group).toBe(true);
    // A process that relays an outbox (its main passes its registry to startOutboxRelay) is alerted on its lag.
    if (relaysOutbox(name)) expect(rules.some((r) => r.alert === `${pascal(name)}OutboxLag` && r.expr.includes("outbox_oldest_unsent_age_seconds"))).toBe(true);
    // A process that runs the retention job (decisions.md section 18) is alerted when a table falls behind its period.
    const server = path.join(ROOT, sourceDir(name), "src", "server.ts");
    if (existsSync(server) && readFileSync(server, "utf8").includes("startRetention(")) {
      expect(rules.some((r) => r.alert === `${pascal(name)}RetentionBehind` && r.expr.includes("retention_oldest_row_age_seconds") && r.expr.includes("retention_period_seconds"))).toBe(true);
    }
    // A process whose consumer parks poison events is alerted when it does.
    if (existsSync(server) && readFileSync(server, "utf8").includes("maxAttempts")) {
      expect(rules.some((r) => r.alert === `${pascal(name)}EventsParked` && r.expr.includes("consumer_events_parked_total"))).toBe(true);
    }
    if (name === "webhook") expect(rules.some((r) => r.expr.includes("webhook_delivery_attempts_total") && r.expr.includes('outcome!="DELIVERED"'))).toBe(true);
  });
});

/**
 * The alerts every process shares (issue 32 point 7: not only "everything is down"), written once
 * in scripts/alerts.ts and generated into each rule file and README; each checked against the
 * objects it watches as rendered, so a renamed Deployment, container, Job, HPA or PodMonitor label
 * leaves no alert watching nothing.
 */
// The base's processes (the sandbox's fleet has an alert of its own, in its overlay). That the rule
// files and READMEs hold exactly what scripts/alerts.ts writes is make check-alerts's (make test runs it).
describe.each(PROCESSES)("shared alerts of %s", (name) => {
  const rules = (find(base, "PrometheusRule", `${name}-alerts`).spec as RuleSpec).groups.flatMap((g) => g.rules);
  const rule = (suffix: string): Rule => {
    const found = rules.find((r) => r.alert === `${pascal(name)}${suffix}`);
    if (!found) throw new Error(`no ${pascal(name)}${suffix} alert`);
    return found;
  };
  const deployment = find(base, "Deployment", name);
  const selector = (metric: string, label: string, value: string) => new RegExp(`${metric}\\{[^}]*\\b${label}="${value}"`);

  it("fire on partial loss: a share of its Deployment's pods unavailable while others serve", () => {
    const { expr, for: lasting, labels } = rule("PodsNotReady");
    for (const metric of ["kube_deployment_spec_replicas", "kube_deployment_status_replicas_available"]) expect(expr).toMatch(selector(metric, "deployment", deployment.metadata.name));
    expect(expr).toMatch(/>= 0\.\d+\n/);
    // Not when every pod is down: ReadinessDown pages for that.
    expect(expr).toMatch(/\nand kube_deployment_status_replicas_available\{[^}]*\} > 0$/);
    expect(rule("ReadinessDown").expr).toContain("== 0");
    expect([lasting, labels.severity]).toEqual(["15m", "ticket"]);
  });

  it("fire on crash loops of its serving container", () => {
    const container = podSpec(deployment).containers[0]?.name ?? "";
    const { expr } = rule("CrashLooping");
    expect(expr).toMatch(selector("kube_pod_container_status_waiting_reason", "container", container));
    expect(expr).toContain('reason="CrashLoopBackOff"');
    expect(expr).toMatch(selector("kube_pod_container_status_restarts_total", "container", container));
    // By pod, so the alert names the pod to look at.
    expect(expr.match(/by \(pod\)/g)).toHaveLength(2);
  });

  it("fire when one of its migration Jobs fails, and exist only for a process that has one", () => {
    const jobs = ofKind(base, "Job").filter((job) => job.metadata.labels?.["app.kubernetes.io/name"] === name);
    expect(jobs.length).toBe(name === "gateway" || name === "pricing" ? 0 : 1);
    const migrationRules = rules.filter((r) => r.alert === `${pascal(name)}MigrationFailed`);
    expect(migrationRules).toHaveLength(jobs.length);
    for (const job of jobs) {
      const { expr, labels } = rule("MigrationFailed");
      // kube_job_failed is the Job's Failed condition; kube_job_status_failed counts failed pods, which a retry that succeeds also leaves.
      expect(expr).toMatch(selector("kube_job_failed", "job_name", job.metadata.name));
      expect(expr).toContain('condition="true"');
      expect(labels.severity).toBe("page");
    }
  });

  it("fire when its HorizontalPodAutoscaler is at maxReplicas", () => {
    const hpas = ofKind(base, "HorizontalPodAutoscaler").filter((h) => (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === deployment.metadata.name);
    expect(hpas).toHaveLength(1);
    const hpa = hpas[0]!.metadata.name;
    const { expr } = rule("AtMaxReplicas");
    expect(expr).toMatch(selector("kube_horizontalpodautoscaler_status_current_replicas", "horizontalpodautoscaler", hpa));
    expect(expr).toMatch(selector("kube_horizontalpodautoscaler_spec_max_replicas", "horizontalpodautoscaler", hpa));
    expect(expr).toContain(">= on (namespace, horizontalpodautoscaler)");
  });

  it("fire when Prometheus scrapes none of its pods, under the job name its PodMonitor gives them", () => {
    const monitor = find(base, "PodMonitor", name).spec as { jobLabel?: string; selector: { matchLabels: Record<string, string> } };
    expect(monitor.jobLabel, "the PodMonitor names the job by a pod label").toBeDefined();
    const template = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    const job = template[monitor.jobLabel ?? ""];
    expect(job).toBe(name);
    expect(rule("ScrapeTargetAbsent").expr).toBe(`absent(up{job="${job}"} == 1)`);
  });
});
