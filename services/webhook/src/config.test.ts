import { problemSettings } from "@tawsil/config";
import { describe, expect, it } from "vitest";
import { readConfig } from "./config";
import { DNS_DEADLINE_MS } from "./infra/dns-resolver";

const BASE = {
  PORT: "7006",
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/tawsil_webhook",
  KAFKA_BROKERS: "127.0.0.1:9092",
  WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
};

describe("webhook configuration", () => {
  it("sends with a 15 s timeout, 4 at once per endpoint, https only, and keeps deliveries 30 days by default", () => {
    const config = readConfig(BASE);
    expect(config).toMatchObject({ WEBHOOK_ATTEMPT_TIMEOUT_MS: 15_000, WEBHOOK_ENDPOINT_CONCURRENCY: 4, WEBHOOK_ALLOW_INSECURE_URLS: false, WEBHOOK_DELIVERY_RETENTION_DAYS: 30, WEBHOOK_DNS_SERVERS: [] });
    expect(config.WEBHOOK_SECRET_ENCRYPTION_KEY).toHaveLength(32);
    expect(readConfig({ ...BASE, WEBHOOK_DNS_SERVERS: " 10.0.0.10, 10.0.0.11 " }).WEBHOOK_DNS_SERVERS).toEqual(["10.0.0.10", "10.0.0.11"]);
    expect(problemSettings(readConfig, {})).toEqual(["DATABASE_URL", "KAFKA_BROKERS", "PORT", "WEBHOOK_SECRET_ENCRYPTION_KEY"]);
  });

  it("refuses a key that is not 32 bytes of base64", () => {
    expect(problemSettings(readConfig, { ...BASE, WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(16).toString("base64") })).toEqual(["WEBHOOK_SECRET_ENCRYPTION_KEY"]);
    expect(problemSettings(readConfig, { ...BASE, WEBHOOK_SECRET_ENCRYPTION_KEY: "not base64!" })).toEqual(["WEBHOOK_SECRET_ENCRYPTION_KEY"]);
  });

  it("refuses a lease that a send within its timeout could outlive, and insecure URLs in production", () => {
    const shortest = 15_000 + DNS_DEADLINE_MS + 30_000;
    expect(problemSettings(readConfig, { ...BASE, WEBHOOK_LEASE_MS: String(shortest - 1) })).toEqual(["WEBHOOK_LEASE_MS"]);
    expect(problemSettings(readConfig, { ...BASE, WEBHOOK_LEASE_MS: String(shortest) })).toEqual([]);
    expect(problemSettings(readConfig, { ...BASE, TAWSIL_ENVIRONMENT: "production", WEBHOOK_ALLOW_INSECURE_URLS: "true" })).toContain("WEBHOOK_ALLOW_INSECURE_URLS");
    expect(problemSettings(readConfig, { ...BASE, WEBHOOK_ALLOW_INSECURE_URLS: "true" })).toEqual([]);
  });
});
