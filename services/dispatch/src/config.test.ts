import { configProblems } from "@tawsil/config";
import { describe, expect, it } from "vitest";
import { readConfig } from "./config";

const base = {
  PORT: "7004",
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/tawsil_dispatch",
  KAFKA_BROKERS: "127.0.0.1:9092",
  SHIPMENT_SERVICE_URL: "http://127.0.0.1:7002",
};

const problems = (env: Record<string, string | undefined>) => configProblems(readConfig, env);

describe("dispatch configuration", () => {
  it("needs only HOST, PORT, DATABASE_URL, KAFKA_BROKERS and SHIPMENT_SERVICE_URL; the rest has defaults", () => {
    const config = readConfig({ ...base, HOST: "0.0.0.0" });
    expect(config).toMatchObject({
      HOST: "0.0.0.0",
      PORT: 7004,
      KAFKA_BROKERS: ["127.0.0.1:9092"],
      CATALOGUE_REFRESH_MS: 60_000,
      OFFER_TIMEOUT_MS: 30_000,
      DISPATCH_TIMEOUT_MS: 300_000,
      DISPATCHER_SAFETY_NET_MS: 60_000,
      LEADER_RETRY_MS: 5_000,
      UNRESOLVED_RETRY_BACKOFF_MS: 30_000,
      // decisions.md section 4: 45 minutes before the pickup window.
      PICKUP_OFFER_LEAD_MS: 2_700_000,
    });
    // The environment decides the backlog order unless it is set (server.ts backlogOrderOf).
    expect(config.DISPATCH_BACKLOG_ORDER).toBeUndefined();
    expect(readConfig({ ...base, CATALOGUE_REFRESH_MS: "5000" }).CATALOGUE_REFRESH_MS).toBe(5000);
    expect(readConfig({ ...base, DISPATCH_BACKLOG_ORDER: "OLDEST_FIRST" }).DISPATCH_BACKLOG_ORDER).toBe("OLDEST_FIRST");
  });

  it("reports every missing or wrong variable", () => {
    expect(problems({}).map((p) => p.split(":")[0]).sort()).toEqual(["DATABASE_URL", "KAFKA_BROKERS", "PORT", "SHIPMENT_SERVICE_URL"]);
    expect(problems({ ...base, CATALOGUE_REFRESH_MS: "10" })[0]).toMatch(/^CATALOGUE_REFRESH_MS:/);
    expect(problems({ ...base, DISPATCH_BACKLOG_ORDER: "RANDOM" })[0]).toMatch(/^DISPATCH_BACKLOG_ORDER:/);
    // A safety net more often than every second would be a polling loop again.
    expect(problems({ ...base, DISPATCHER_SAFETY_NET_MS: "500" })[0]).toMatch(/^DISPATCHER_SAFETY_NET_MS:/);
    expect(problems({ ...base, LEADER_RETRY_MS: "0" })[0]).toMatch(/^LEADER_RETRY_MS:/);
  });
});
