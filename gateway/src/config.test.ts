import { describe, expect, it } from "vitest";
import { readConfig, SERVICES } from "./config";

const required = {
  KAFKA_BROKERS: "127.0.0.1:9092",
  ...Object.fromEntries(SERVICES.map((name) => [`${name.toUpperCase()}_SERVICE_URL`, "http://127.0.0.1:9"])),
};

describe("RATE_LIMIT_REDIS_URL", () => {
  it("is required in production, where the replicas must share their limits", () => {
    expect(() => readConfig({ ...required, TAWSIL_ENVIRONMENT: "production" })).toThrow(/RATE_LIMIT_REDIS_URL is required when TAWSIL_ENVIRONMENT is production/);
    expect(readConfig({ ...required, TAWSIL_ENVIRONMENT: "production", RATE_LIMIT_REDIS_URL: "rediss://:pw@redis.internal:6379" }).RATE_LIMIT_REDIS_URL).toBe("rediss://:pw@redis.internal:6379");
  });

  it("may be unset in sandbox and development: each replica counts in its own memory", () => {
    expect(readConfig({ ...required }).RATE_LIMIT_REDIS_URL).toBeUndefined();
    expect(readConfig({ ...required }).RATE_LIMIT_REDIS_TIMEOUT_MS).toBe(50);
  });

  it("must be a redis:// or rediss:// URL", () => {
    expect(() => readConfig({ ...required, RATE_LIMIT_REDIS_URL: "http://redis:6379" })).toThrow(/redis/);
  });
});
