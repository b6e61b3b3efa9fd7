import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, commonEnv, kafkaEnv, loadConfig } from "./index";

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

describe("service identity settings", () => {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const der = {
    privateKey: privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
    publicKey: publicKey.export({ format: "der", type: "spki" }).toString("base64"),
  };

  it("parses this process's private key and every caller's public key, by name", () => {
    const config = loadConfig(commonEnv, { PORT: "0", SERVICE_IDENTITY_PRIVATE_KEY: der.privateKey, SERVICE_IDENTITY_PUBLIC_KEYS: `gateway:${der.publicKey}, driver-app:${der.publicKey}` });
    expect(config.SERVICE_IDENTITY_PRIVATE_KEY?.asymmetricKeyType).toBe("ed25519");
    expect([...(config.SERVICE_IDENTITY_PUBLIC_KEYS?.keys() ?? [])]).toEqual(["gateway", "driver-app"]);
    expect(loadConfig(commonEnv, { PORT: "0" }).SERVICE_IDENTITY_PUBLIC_KEYS).toBeUndefined();
  });

  it("trusts every key a caller is listed with (a rotation publishes the new key beside the old)", () => {
    const next = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" }).toString("base64");
    const config = loadConfig(commonEnv, { PORT: "0", SERVICE_IDENTITY_PUBLIC_KEYS: `gateway:${der.publicKey},shipment:${der.publicKey},gateway:${next}` });
    const spki = (key: KeyObject) => key.export({ format: "der", type: "spki" }).toString("base64");
    expect(config.SERVICE_IDENTITY_PUBLIC_KEYS?.get("gateway")?.map(spki)).toEqual([der.publicKey, next]);
    expect(config.SERVICE_IDENTITY_PUBLIC_KEYS?.get("shipment")?.map(spki)).toEqual([der.publicKey]);
  });

  it("refuses keys of another kind or a malformed list, without echoing the values", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ format: "der", type: "pkcs8" }).toString("base64");
    for (const env of [
      { SERVICE_IDENTITY_PRIVATE_KEY: rsa },
      { SERVICE_IDENTITY_PRIVATE_KEY: der.publicKey },
      { SERVICE_IDENTITY_PUBLIC_KEYS: der.publicKey },
      { SERVICE_IDENTITY_PUBLIC_KEYS: `Gateway:${der.publicKey}` },
      { SERVICE_IDENTITY_PUBLIC_KEYS: `gateway:${der.privateKey}` },
    ]) {
      let error: unknown;
      try {
        loadConfig(commonEnv, { PORT: "0", ...env });
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(Object.keys(env))).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.split(":")[0])).toEqual(Object.keys(env));
      expect((error as ConfigError).message).not.toContain(Object.values(env)[0]!.slice(-20));
    }
  });
});

describe("Kafka settings", () => {
  const schema = commonEnv.extend(kafkaEnv.shape);
  const base = { PORT: "0", KAFKA_BROKERS: "kafka-0:9092, kafka-1:9092" };

  it("leave TLS and SASL unset by default: plaintext, as make dev runs", () => {
    const config = loadConfig(schema, base);
    expect(config.KAFKA_BROKERS).toEqual(["kafka-0:9092", "kafka-1:9092"]);
    expect([config.KAFKA_TLS_CA_FILE, config.KAFKA_SASL_MECHANISM, config.KAFKA_SASL_USERNAME, config.KAFKA_SASL_PASSWORD]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("take a CA file, SCRAM-SHA-512 and a user, and refuse another mechanism without echoing the password", () => {
    const config = loadConfig(schema, { ...base, KAFKA_TLS_CA_FILE: "/etc/tawsil/kafka-ca/ca.crt", KAFKA_SASL_MECHANISM: "scram-sha-512", KAFKA_SASL_USERNAME: "shipment-kafka", KAFKA_SASL_PASSWORD: "pw-0123456789" });
    expect(config).toMatchObject({ KAFKA_TLS_CA_FILE: "/etc/tawsil/kafka-ca/ca.crt", KAFKA_SASL_MECHANISM: "scram-sha-512", KAFKA_SASL_USERNAME: "shipment-kafka" });
    // PLAIN would send the password itself to the broker.
    expect(() => loadConfig(schema, { ...base, KAFKA_SASL_MECHANISM: "plain", KAFKA_SASL_PASSWORD: "pw-0123456789" })).toThrow(/KAFKA_SASL_MECHANISM/);
    expect(() => loadConfig(schema, { ...base, KAFKA_SASL_MECHANISM: "plain", KAFKA_SASL_PASSWORD: "pw-0123456789" })).not.toThrow(/pw-0123456789/);
  });
});
