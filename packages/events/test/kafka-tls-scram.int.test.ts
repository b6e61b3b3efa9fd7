/**
 * The project's Kafka client settings against a real broker secured as production's is: a
 * SASL_SSL listener with SCRAM-SHA-512, its certificate signed by a CA of this test's own. The
 * client is built exactly as every process builds it (kafkaConnection from the KAFKA_* settings,
 * PEM files on disk, then createKafka): it produces and consumes with its user's password and the
 * cluster's CA, and is refused with a wrong password and when it trusts another CA.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createKafka, kafkaConnection, type KafkaConnectionSettings } from "@tawsil/events";
import { createLogger } from "@tawsil/logging";
import { freePort } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureKafka, type KafkaHandle } from "../../../scripts/infra/kafka";
import { createCertificateAuthority, type CertificateAuthority } from "../../../scripts/infra/kafka/certificates";

const logger = createLogger({ service: "kafka-tls-scram-test", level: "silent" });
const secret = () => randomBytes(18).toString("base64url");
const BROKER_USER = { name: "broker", password: secret() };
const APP_USER = { name: "shipment-kafka", password: secret() };
const TOPIC = "secured.roundtrip.v1";

describe("Kafka over TLS with SCRAM-SHA-512 (a real broker started here)", () => {
  let clusterCa: CertificateAuthority;
  let strangerCa: CertificateAuthority;
  let broker: KafkaHandle;
  let dir: string;
  let settings: KafkaConnectionSettings;

  const client = (overrides: Partial<KafkaConnectionSettings> = {}) => createKafka({ clientId: `tls-test-${randomUUID().slice(0, 8)}`, logger, ...kafkaConnection({ ...settings, ...overrides }) });

  beforeAll(async () => {
    [clusterCa, strangerCa] = await Promise.all([createCertificateAuthority("tawsil-test-cluster-ca"), createCertificateAuthority("someone-elses-ca")]);
    const { key, certificate } = await clusterCa.issue("tawsil-test-broker");
    broker = await ensureKafka({
      port: await freePort(),
      controllerPort: await freePort(),
      reuse: false,
      security: { key, certificate, ca: clusterCa.certificate, users: [BROKER_USER, APP_USER] },
      log: () => undefined,
    });
    // The files a pod mounts: the cluster CA's certificate (Strimzi's <cluster>-cluster-ca-cert) and another CA's.
    dir = await mkdtemp(path.join(os.tmpdir(), "tawsil-kafka-client-"));
    await writeFile(path.join(dir, "ca.crt"), clusterCa.certificate);
    await writeFile(path.join(dir, "stranger-ca.crt"), strangerCa.certificate);
    settings = {
      KAFKA_BROKERS: broker.brokers,
      KAFKA_TLS_CA_FILE: path.join(dir, "ca.crt"),
      KAFKA_SASL_MECHANISM: "scram-sha-512",
      KAFKA_SASL_USERNAME: APP_USER.name,
      KAFKA_SASL_PASSWORD: APP_USER.password,
    };
    const admin = client().admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1 }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
  });

  afterAll(async () => {
    await broker?.stop();
    await Promise.all([clusterCa?.dispose(), strangerCa?.dispose(), dir ? rm(dir, { recursive: true, force: true }) : undefined]);
  });

  it("produces and consumes with the user's password and the cluster's CA", async () => {
    const kafka = client();
    const producer = kafka.producer({ maxInFlightRequests: 1, allowAutoTopicCreation: false });
    const consumer = kafka.consumer({ groupId: `tls-test-${randomUUID()}`, maxWaitTimeInMs: 500, allowAutoTopicCreation: false });
    await Promise.all([producer.connect(), consumer.connect()]);
    try {
      await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
      const received = new Promise<string>((resolve) => void consumer.run({ eachMessage: async ({ message }) => resolve(message.value?.toString() ?? "") }));
      const value = `sealed ${randomUUID()}`;
      await producer.send({ topic: TOPIC, messages: [{ key: "shipment-1", value }] });
      expect(await received).toBe(value);
    } finally {
      await Promise.all([producer.disconnect(), consumer.disconnect()]);
    }
  });

  it("is not served in plaintext, so the settings above are what gets a client in", async () => {
    const admin = createKafka({ clientId: "plaintext", logger, ...kafkaConnection({ KAFKA_BROKERS: broker.brokers }) }).admin();
    await expect(admin.connect()).rejects.toThrow();
    await admin.disconnect();
  });

  it("is refused with a wrong password", async () => {
    const producer = client({ KAFKA_SASL_PASSWORD: `${APP_USER.password}-wrong` }).producer();
    await expect(producer.connect()).rejects.toThrow(/SASL SCRAM SHA512 authentication failed/i);
    await producer.disconnect();
  });

  it("is refused by a broker whose certificate another CA signed than the one it trusts", async () => {
    const producer = client({ KAFKA_TLS_CA_FILE: path.join(dir, "stranger-ca.crt") }).producer();
    await expect(producer.connect()).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
    await producer.disconnect();
  });
});
