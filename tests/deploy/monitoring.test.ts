/**
 * Monitoring as rendered: a PodMonitor scraping every process's metrics port at /metrics, and the
 * Grafana dashboard ConfigMap (deploy/monitoring) with the panels operators need, on metrics the
 * alerts also use.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { find, podSpec, processesIn, workload } from "./facts";
import { DEPLOY, render } from "./kustomize";

interface Panel { title: string; targets: { expr: string }[] }
interface PodMonitorSpec { jobLabel?: string; selector: { matchLabels: Record<string, string> }; podMetricsEndpoints: { port: string; path: string }[] }

describe.each(["sandbox", "production"] as const)("monitoring of overlays/%s", (overlay) => {
  const manifests = render(path.join(DEPLOY, "overlays", overlay));

  it.each(processesIn(overlay))("scrapes %s: a PodMonitor on its pods' metrics port at /metrics", (name) => {
    const deployment = find(manifests, "Deployment", name);
    const spec = find(manifests, "PodMonitor", name).spec as PodMonitorSpec;
    expect(spec.selector.matchLabels).toEqual(workload(deployment).selector?.matchLabels);
    const port = podSpec(deployment).containers[0]?.ports?.find((p) => p.name === "metrics");
    expect(port).toBeDefined();
    expect(spec.podMetricsEndpoints).toEqual([expect.objectContaining({ port: port?.name, path: "/metrics" })]);
    // Its targets' job is the pods' name (not the operator's "<namespace>/<podmonitor>"), which the ScrapeTargetAbsent alerts read.
    expect(spec.jobLabel).toBe("app.kubernetes.io/name");
    expect(workload(deployment).template.metadata.labels["app.kubernetes.io/name"]).toBe(name);
  });

  it("ships the dashboard as a ConfigMap Grafana's sidecar loads, with a panel per signal", () => {
    const config = find(manifests, "ConfigMap", "tawsil-dashboard");
    expect(config.metadata.labels).toMatchObject({ grafana_dashboard: "1" });
    const dashboard = JSON.parse(config.data?.["dashboard.json"] ?? "{}") as { uid: string; panels: Panel[] };
    expect(dashboard.uid).toBe("tawsil-overview");
    const exprOf = (title: RegExp) => dashboard.panels.find((p) => title.test(p.title))?.targets.map((t) => t.expr).join(" ") ?? "";
    expect(exprOf(/^Request rate/)).toContain("rate(rpc_server_duration_seconds_count");
    expect(exprOf(/^Server errors/)).toMatch(/code=~"Internal\|/);
    expect(exprOf(/^Latency/)).toContain("histogram_quantile(0.99");
    expect(exprOf(/^Outbox lag/)).toContain("outbox_oldest_unsent_age_seconds");
    expect(exprOf(/^Consumer lag/)).toContain("kafka_consumergroup_lag");
    expect(exprOf(/^Webhook delivery failures/)).toContain("webhook_delivery_attempts_total");
    expect(exprOf(/^API answers/)).toContain("rate(http_server_request_duration_seconds_count{service=\"gateway\"}");
    expect(exprOf(/^API latency/)).toContain("histogram_quantile(0.99, sum by (route, le) (rate(http_server_request_duration_seconds_bucket");
  });
});
