import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, commonEnv, loadConfig } from "./index";

describe("loadConfig", () => {
  const schema = commonEnv.extend({ DATABASE_URL: z.url(), KAFKA_BROKERS: z.string().min(1) });

  it("returns typed, defaulted and frozen values", () => {
    const config = loadConfig(schema, { PORT: "7001", DATABASE_URL: "postgres://h/db", KAFKA_BROKERS: "127.0.0.1:9092" });
    expect(config.PORT).toBe(7001);
    expect(config.LOG_LEVEL).toBe("info");
    expect(config.TAWSIL_ENVIRONMENT).toBe("sandbox");
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("lists every problem at once instead of failing on the first", () => {
    let error: unknown;
    try {
      loadConfig(schema, { PORT: "not-a-port", LOG_LEVEL: "loud" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const fields = (error as ConfigError).problems.map((p) => p.split(":")[0]);
    expect(fields.sort()).toEqual(["DATABASE_URL", "KAFKA_BROKERS", "LOG_LEVEL", "PORT"]);
  });
});
