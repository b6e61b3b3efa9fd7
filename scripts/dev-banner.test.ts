import { describe, expect, it } from "vitest";
import { readyBanner } from "./dev-banner";

describe("make dev's ready banner", () => {
  it("names the API reference (/docs) on this checkout's gateway, and the operators' CLI", () => {
    const banner = readyBanner({
      seconds: 37.2,
      gatewayBaseUrl: "http://localhost:8180",
      gatewayMetricsUrl: "http://127.0.0.1:7127/metrics",
      services: [{ name: "merchant", url: "http://127.0.0.1:7101", metricsUrl: "http://127.0.0.1:7121/metrics", adminUrl: "http://127.0.0.1:7111" }],
      postgresHost: "127.0.0.1:5432",
      dbPrefix: "tawsil_x_",
      kafkaBrokers: ["127.0.0.1:9192"],
      logDir: ".dev/logs",
      credentialsFile: ".dev/credentials.env",
      ready: "ready",
    }).split("\n");
    expect(banner).toContain("  docs         http://localhost:8180/docs   (the API reference; its OpenAPI document is http://localhost:8180/v2/openapi.json)");
    expect(banner).toContain("  operators    ./tawsil help");
    expect(banner).toContain("  merchant     http://127.0.0.1:7101   (Connect + gRPC, /readyz; /metrics on http://127.0.0.1:7121/metrics; admin RPCs on http://127.0.0.1:7111)");
  });
});
