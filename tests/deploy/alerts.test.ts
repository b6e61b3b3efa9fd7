/**
 * Each process's PrometheusRule (deploy/base/alerts/<process>.yaml; the sandbox fleet's in deploy/overlays/sandbox): alerts named after and owned
 * by their process, on metrics that exist, each with a runbook section in the process's README,
 * and every runbook section of a README backed by a real alert.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_PROCESSES, find, servesRpcs, sourceDir, type ProcessName } from "./facts";
import { DEPLOY, ROOT, overlayOwnObjects, render } from "./kustomize";

interface Rule { alert: string; expr: string; for: string; labels: Record<string, string>; annotations: Record<string, string> }
interface RuleSpec { groups: { name: string; rules: Rule[] }[] }

/** The base's rules and the sandbox's own (its fleet's). */
const written = [...render(path.join(DEPLOY, "base")), ...overlayOwnObjects("sandbox")];
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
/** Exporters the alerts may rely on: prom-client's Node defaults, kube-state-metrics, Strimzi's Kafka Exporter. */
const EXTERNAL_METRIC = /^(nodejs_\w+|kube_deployment_(status|spec)_\w+|kafka_consumergroup_lag)$/;
const PROMQL_WORDS = new Set(["sum", "rate", "by", "le", "max", "histogram_quantile", "outcome", "status_code", "table", "increase", "reason"]);

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

describe.each(ALL_PROCESSES)("alerts of %s", (name) => {
  const rules = (find(written, "PrometheusRule", `${name}-alerts`).spec as RuleSpec).groups.flatMap((g) => g.rules);

  it("are named after it, labelled for its team, and link a runbook section of its README", () => {
    expect(rules.length).toBeGreaterThan(0);
    const headings = runbookHeadings(readmeOf(name));
    for (const rule of rules) {
      expect(rule.alert).toMatch(new RegExp(`^${pascal(name)}[A-Z]\\w+$`));
      expect(rule.labels).toEqual({ severity: expect.stringMatching(/^(page|ticket)$/), team: `team-${name}` });
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
      const own = rule.expr.includes(`service="${name}"`) || rule.expr.includes(`deployment="${name}"`) ||
        consumerGroupsOf(name).some((group) => rule.expr.includes(`consumergroup="${group}"`));
      expect(own, rule.alert).toBe(true);
      const metrics = [...rule.expr.replace(/\{[^}]*\}|\[[^\]]*\]/g, "").matchAll(/\b([a-z_][a-z0-9_]*)\b/g)].map((m) => m[1] as string).filter((w) => !PROMQL_WORDS.has(w));
      for (const metric of metrics) expect(OWN_METRICS.some((own) => metric.startsWith(own)) || EXTERNAL_METRIC.test(metric), `${rule.alert}: ${metric}`).toBe(true);
    }
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
