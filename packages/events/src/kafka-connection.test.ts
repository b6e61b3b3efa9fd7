import { describe, expect, it } from "vitest";
import { kafkaConnection, type KafkaConnectionSettings } from "./kafka-connection";

const BROKERS = ["kafka:9093"];
const FILES: Record<string, string> = { "/ca.pem": "CA PEM", "/client.pem": "CERT PEM", "/client.key": "KEY PEM" };
const readFile = (file: string) => {
  const text = FILES[file];
  if (text === undefined) throw Object.assign(new Error("no such file"), { code: "ENOENT" });
  return text;
};
const SCRAM = { KAFKA_SASL_MECHANISM: "scram-sha-512", KAFKA_SASL_USERNAME: "shipment-kafka", KAFKA_SASL_PASSWORD: "s3cret-never-echoed" } as const;
const connect = (settings: Omit<KafkaConnectionSettings, "KAFKA_BROKERS">) => kafkaConnection({ KAFKA_BROKERS: BROKERS, ...settings }, readFile);

describe("kafkaConnection", () => {
  it("is plaintext and unauthenticated with nothing set, as make dev is", () => {
    expect(connect({})).toEqual({ brokers: BROKERS });
  });

  it("trusts the configured CA and authenticates with SCRAM", () => {
    expect(connect({ KAFKA_TLS_CA_FILE: "/ca.pem", ...SCRAM })).toEqual({
      brokers: BROKERS,
      tls: { ca: "CA PEM" },
      sasl: { mechanism: "scram-sha-512", username: "shipment-kafka", password: "s3cret-never-echoed" },
    });
  });

  it("adds a client certificate for mutual TLS", () => {
    expect(connect({ KAFKA_TLS_CA_FILE: "/ca.pem", KAFKA_TLS_CERT_FILE: "/client.pem", KAFKA_TLS_KEY_FILE: "/client.key" }).tls).toEqual({ ca: "CA PEM", cert: "CERT PEM", key: "KEY PEM" });
  });

  it.each([
    [{ KAFKA_TLS_CA_FILE: "/ca.pem", KAFKA_TLS_CERT_FILE: "/client.pem" }, "KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE go together"],
    [{ KAFKA_TLS_CERT_FILE: "/client.pem", KAFKA_TLS_KEY_FILE: "/client.key" }, "a client certificate needs KAFKA_TLS_CA_FILE"],
    [{ KAFKA_TLS_CA_FILE: "/ca.pem", KAFKA_SASL_MECHANISM: "scram-sha-512", KAFKA_SASL_USERNAME: "u" }, "go together"],
    [SCRAM, "SASL needs TLS"],
    [{ KAFKA_TLS_CA_FILE: "/missing.pem" }, "cannot read KAFKA_TLS_CA_FILE (/missing.pem): ENOENT"],
  ] as const)("refuses an incomplete or unreadable set: %o", (settings, problem) => {
    expect(() => connect(settings)).toThrow(problem);
  });

  it("never puts the password in an error", () => {
    expect(() => connect(SCRAM)).toThrow(expect.objectContaining({ message: expect.not.stringContaining(SCRAM.KAFKA_SASL_PASSWORD) }));
  });
});
