import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBareGateway, type BareGateway } from "./support/bare-gateway";

let gateway: BareGateway;

beforeAll(async () => {
  gateway = await startBareGateway();
});
afterAll(async () => {
  await gateway?.close();
});

/** The request counts of the latency histogram, keyed "METHOD route status". */
async function requestCounts(): Promise<Record<string, number>> {
  const metric = (await gateway.registry.getMetricsAsJSON()).find((m) => m.name === "http_server_request_duration_seconds");
  const counts: Record<string, number> = {};
  for (const value of metric?.values ?? []) {
    if ((value as { metricName?: string }).metricName !== "http_server_request_duration_seconds_count") continue;
    const { method, route, status_code } = value.labels;
    counts[`${method} ${route} ${status_code}`] = value.value;
  }
  return counts;
}

describe("gateway request metrics", () => {
  it("count every answer by method, route template and status, never by raw path", async () => {
    for (let i = 0; i < 2; i++) {
      // A different id each time: the label is the template, so both land in one series.
      expect((await fetch(`${gateway.base}/v2/external/shipments/${randomUUID()}`)).status).toBe(401);
    }
    expect((await fetch(`${gateway.base}/v2/external/me`)).status).toBe(401);
    expect((await fetch(`${gateway.base}/v2/external/${randomUUID()}`)).status).toBe(404);
    const counts = await requestCounts();
    expect(counts["GET /v2/external/shipments/:shipmentId 401"]).toBe(2);
    expect(counts["GET /v2/external/me 401"]).toBe(1);
    expect(counts["GET unrouted 404"]).toBe(1);
    expect(Object.keys(counts).some((key) => /[0-9a-f]{8}-[0-9a-f]{4}-/.test(key))).toBe(false);
  });
});
