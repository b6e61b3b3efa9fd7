import { randomBytes } from "node:crypto";
import { configProblems } from "@tawsil/config";
import { describe, expect, it } from "vitest";
import { readConfig } from "./config";

const base = { PORT: "7001", DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/tawsil_merchant", SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"), KAFKA_BROKERS: "127.0.0.1:9092" };

describe("merchant configuration", () => {
  it("defaults the token settings by environment", () => {
    const sandbox = readConfig(base);
    expect(sandbox.TOKEN_ISSUER).toBe("https://sandbox.api.tawsil.sa");
    expect(sandbox.TOKEN_AUDIENCE).toBe("https://api.tawsil.sa/v2");
    expect(sandbox.TOKEN_TTL_SECONDS).toBe(3600);
    expect(sandbox.SIGNING_KEY_ENCRYPTION_KEY.length).toBe(32);
    expect(readConfig({ ...base, TAWSIL_ENVIRONMENT: "production" }).TOKEN_ISSUER).toBe("https://api.tawsil.sa");
    expect(readConfig({ ...base, TOKEN_ISSUER: "https://issuer.example" }).TOKEN_ISSUER).toBe("https://issuer.example");
  });

  it("requires a base64 key of exactly 32 bytes", () => {
    const problems = (env: Record<string, string | undefined>) => configProblems(readConfig, env);
    expect(problems({ ...base, SIGNING_KEY_ENCRYPTION_KEY: undefined })[0]).toMatch(/^SIGNING_KEY_ENCRYPTION_KEY:/);
    expect(problems({ ...base, SIGNING_KEY_ENCRYPTION_KEY: randomBytes(31).toString("base64") })[0]).toMatch(/exactly 32 bytes/);
    expect(problems({ ...base, SIGNING_KEY_ENCRYPTION_KEY: "not base64!" })[0]).toMatch(/base64/);
    expect(problems({ ...base, TOKEN_TTL_SECONDS: "10" })[0]).toMatch(/^TOKEN_TTL_SECONDS:/);
  });
});
