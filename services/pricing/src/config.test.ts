import { problemSettings } from "@tawsil/config";
import { describe, expect, it } from "vitest";
import { readConfig } from "./config";

const BASE = {
  PORT: "7003",
  MERCHANT_SERVICE_URL: "http://127.0.0.1:7001",
  KAFKA_BROKERS: "127.0.0.1:9092",
};

const problems = (env: Record<string, string>) => problemSettings(readConfig, env);

describe("pricing config", () => {
  it("defaults to the great-circle model with the documented circuity factors and 2 s deadlines", () => {
    const config = readConfig(BASE);
    expect(config.ROUTING_URL).toBeUndefined();
    expect(config.ROUTING_TIMEOUT_MS).toBe(2000);
    expect(config.PEER_TIMEOUT_MS).toBe(2000);
    expect(config.CIRCUITY_FACTORS).toEqual({ RUH: 1.3, JED: 1.35, DMM: 1.3, MKK: 1.45, MED: 1.3 });
  });

  it("reads a routing server, deadlines and circuity overrides; a blank ROUTING_URL means none", () => {
    const config = readConfig({ ...BASE, ROUTING_URL: "http://osrm.internal:5000", ROUTING_TIMEOUT_MS: "750", PEER_TIMEOUT_MS: "900", CIRCUITY_FACTORS: "JED=1.4" });
    expect([config.ROUTING_URL, config.ROUTING_TIMEOUT_MS, config.PEER_TIMEOUT_MS, config.CIRCUITY_FACTORS.JED]).toEqual(["http://osrm.internal:5000", 750, 900, 1.4]);
    expect(readConfig({ ...BASE, ROUTING_URL: "" }).ROUTING_URL).toBeUndefined();
  });

  it("requires the merchant service's url and reports every bad setting at once", () => {
    expect(problems({ PORT: "7003", KAFKA_BROKERS: BASE.KAFKA_BROKERS, ROUTING_URL: "osrm", CIRCUITY_FACTORS: "RUH=9", ROUTING_TIMEOUT_MS: "0" }).sort()).toEqual([
      "CIRCUITY_FACTORS",
      "MERCHANT_SERVICE_URL",
      "ROUTING_TIMEOUT_MS",
      "ROUTING_URL",
    ]);
  });
});
