import { problemSettings } from "@tawsil/config";
import { describe, expect, it } from "vitest";
import { readConfig } from "./config";

const BASE = {
  PORT: "7005",
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/tawsil_tracking",
  KAFKA_BROKERS: "127.0.0.1:9092",
  SHIPMENT_SERVICE_URL: "http://127.0.0.1:7002",
};

describe("tracking configuration", () => {
  it("needs its port, database, brokers and the shipment service; keeps fixes 30 days and projections 90 (decisions.md section 18)", () => {
    const config = readConfig(BASE);
    expect(config).toMatchObject({ PEER_TIMEOUT_MS: 2000, DRIVER_FIX_RETENTION_DAYS: 30, PROJECTION_RETENTION_DAYS: 90, PROCESSED_EVENT_RETENTION_DAYS: 14, CONSUMER_MAX_ATTEMPTS: 5 });
    expect(config.KAFKA_BROKERS).toEqual(["127.0.0.1:9092"]);
    expect(problemSettings(readConfig, {})).toEqual(["DATABASE_URL", "KAFKA_BROKERS", "PORT", "SHIPMENT_SERVICE_URL"]);
  });

  it("names every bad setting at once", () => {
    const env = { ...BASE, DATABASE_URL: "mysql://db/tracking", DRIVER_FIX_RETENTION_DAYS: "0", PROJECTION_RETENTION_DAYS: "ninety", PEER_TIMEOUT_MS: "5" };
    expect(problemSettings(readConfig, env)).toEqual(["DATABASE_URL", "DRIVER_FIX_RETENTION_DAYS", "PEER_TIMEOUT_MS", "PROJECTION_RETENTION_DAYS"]);
  });
});
