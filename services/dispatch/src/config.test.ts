import type { ConfigError } from "@tawsil/config";
import { describe, expect, it } from "vitest";
import { readConfig } from "./config";

const base = { PORT: "7004", DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/tawsil_dispatch", KAFKA_BROKERS: "127.0.0.1:9092" };

function problems(env: Record<string, string | undefined>): string[] {
  try {
    readConfig(env);
    return [];
  } catch (error) {
    return (error as ConfigError).problems;
  }
}

describe("dispatch configuration", () => {
  it("needs only HOST, PORT, DATABASE_URL and KAFKA_BROKERS; the catalogue refreshes every minute by default", () => {
    const config = readConfig({ ...base, HOST: "0.0.0.0" });
    expect(config).toMatchObject({ HOST: "0.0.0.0", PORT: 7004, KAFKA_BROKERS: ["127.0.0.1:9092"], CATALOGUE_REFRESH_MS: 60_000 });
    expect(readConfig({ ...base, CATALOGUE_REFRESH_MS: "5000" }).CATALOGUE_REFRESH_MS).toBe(5000);
  });

  it("reports every missing or wrong variable", () => {
    expect(problems({}).map((p) => p.split(":")[0]).sort()).toEqual(["DATABASE_URL", "KAFKA_BROKERS", "PORT"]);
    expect(problems({ ...base, CATALOGUE_REFRESH_MS: "10" })[0]).toMatch(/^CATALOGUE_REFRESH_MS:/);
  });
});
