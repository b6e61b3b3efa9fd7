/**
 * The project's Kafka client settings against a real broker secured as a deployed cluster is: a
 * SASL_SSL listener with SCRAM-SHA-512, its certificate signed by a CA of this test's own, and
 * the authorizer on with the ACLs deploy/base/kafka-users.yaml grants. Clients are built exactly as
 * every process builds its own (kafkaConnection from the KAFKA_* settings, PEM files on disk, then
 * createKafka). Shipment's user publishes its events and dispatch's user consumes them in its
 * group; a wrong password, another CA, plaintext, a topic or group the user was not granted: refused.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createKafka, kafkaConnection, type KafkaConnectionSettings } from "@tawsil/events";
import { createLogger } from "@tawsil/logging";
import { freePort } from "@tawsil/testing";
import type { Kafka } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureKafka, type KafkaHandle } from "../../testing/src/infra/kafka";
import { createCertificateAuthority, type CertificateAuthority } from "../../testing/src/infra/kafka/certificates";
import { ASSIGNMENT_EVENTS_TOPIC, MERCHANT_EVENTS_TOPIC, SHIPMENT_EVENTS_TOPIC, TOPICS } from "../../topology/src";
import { deployedAclsOf } from "./fixtures/kafka-user-acls";

const logger = createLogger({ service: "kafka-tls-scram-test", level: "silent" });
const secret = () => randomBytes(18).toString("base64url");
const BROKER = { name: "broker", password: secret() };
const SHIPMENT = { name: "shipment-kafka", password: secret() };
const DISPATCH = { name: "dispatch-kafka", password: secret() };

describe("Kafka over TLS with SCRAM-SHA-512 and the deployed ACLs (a real broker started here)", () => {
  let clusterCa: CertificateAuthority;
  let strangerCa: CertificateAuthority;
  let broker: KafkaHandle;
  let dir: string;

  /** A process's settings as its pod has them: the cluster CA's file, its user and password. */
  const settingsOf = (user: { name: string; password: string }): KafkaConnectionSettings => ({
    KAFKA_BROKERS: broker.brokers,
    KAFKA_TLS_CA_FILE: path.join(dir, "ca.crt"),
    KAFKA_SASL_MECHANISM: "scram-sha-512",
    KAFKA_SASL_USERNAME: user.name,
    KAFKA_SASL_PASSWORD: user.password,
  });
  const client = (settings: KafkaConnectionSettings): Kafka => createKafka({ clientId: `tls-test-${randomUUID().slice(0, 8)}`, logger, ...kafkaConnection(settings) });

  beforeAll(async () => {
    [clusterCa, strangerCa] = await Promise.all([createCertificateAuthority("tawsil-test-cluster-ca"), createCertificateAuthority("someone-elses-ca")]);
    const { key, certificate } = await clusterCa.issue("tawsil-test-broker");
    broker = await ensureKafka({
      port: await freePort(),
      controllerPort: await freePort(),
      reuse: false,
      security: { key, certificate, ca: clusterCa.certificate, users: [BROKER, SHIPMENT, DISPATCH], authorizer: true },
      log: () => undefined,
    });
    // The files a pod mounts: the cluster CA's certificate (kafka-cluster-ca), and another CA's.
    dir = await mkdtemp(path.join(os.tmpdir(), "tawsil-kafka-client-"));
    await writeFile(path.join(dir, "ca.crt"), clusterCa.certificate);
    await writeFile(path.join(dir, "stranger-ca.crt"), strangerCa.certificate);
    // As the Topic and User Operators would: the architecture's topics, and the two users' ACLs.
    const admin = client(settingsOf(BROKER)).admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: TOPICS.map(({ topic }) => ({ topic, numPartitions: 1 })), waitForLeaders: true });
      await admin.createAcls({ acl: [...deployedAclsOf(SHIPMENT.name), ...deployedAclsOf(DISPATCH.name)] });
    } finally {
      await admin.disconnect();
    }
  });

  afterAll(async () => {
    await broker?.stop();
    await Promise.all([clusterCa?.dispose(), strangerCa?.dispose(), dir ? rm(dir, { recursive: true, force: true }) : undefined]);
  });

  it("lets shipment's user publish its events and dispatch's user consume them in its group", async () => {
    const producer = client(settingsOf(SHIPMENT)).producer({ maxInFlightRequests: 1, allowAutoTopicCreation: false });
    const consumer = client(settingsOf(DISPATCH)).consumer({ groupId: "dispatch.shipments", maxWaitTimeInMs: 500, allowAutoTopicCreation: false });
    await Promise.all([producer.connect(), consumer.connect()]);
    try {
      await consumer.subscribe({ topics: [SHIPMENT_EVENTS_TOPIC], fromBeginning: true });
      const received = new Promise<string>((resolve) => void consumer.run({ eachMessage: async ({ message }) => resolve(message.value?.toString() ?? "") }));
      const value = `shipment changed ${randomUUID()}`;
      await producer.send({ topic: SHIPMENT_EVENTS_TOPIC, messages: [{ key: "shipment-1", value }] });
      expect(await received).toBe(value);
    } finally {
      await Promise.all([producer.disconnect(), consumer.disconnect()]);
    }
  });

  it("lets a broadcast consumer join a group of its own under its granted prefix", async () => {
    const consumer = client(settingsOf(SHIPMENT)).consumer({ groupId: `shipment.merchant-cache.${randomUUID()}`, maxWaitTimeInMs: 500, allowAutoTopicCreation: false });
    const joined = new Promise<unknown>((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [MERCHANT_EVENTS_TOPIC], fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
      await expect(joined).resolves.toBeDefined();
    } finally {
      await consumer.disconnect();
    }
  });

  it("refuses a write to a topic the user does not produce", async () => {
    const producer = client(settingsOf(SHIPMENT)).producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      await expect(producer.send({ topic: ASSIGNMENT_EVENTS_TOPIC, messages: [{ key: "shipment-1", value: "forged" }] })).rejects.toThrow(/not authorized/i);
    } finally {
      await producer.disconnect();
    }
  });

  it("refuses a consumer group the user was not granted", async () => {
    const consumer = client(settingsOf(DISPATCH)).consumer({ groupId: "tracking.projections", maxWaitTimeInMs: 500, retry: { retries: 0 } });
    const crashed = new Promise<Error>((resolve) => consumer.on(consumer.events.CRASH, ({ payload }) => resolve(payload.error)));
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [SHIPMENT_EVENTS_TOPIC], fromBeginning: true });
      await consumer.run({ eachMessage: async () => undefined });
      // kafkajs reports FindCoordinator's GROUP_AUTHORIZATION_FAILED as a coordinator not found that
      // is not retriable (a coordinator merely unavailable is retriable); the same user joins its own group above.
      expect(await crashed).toMatchObject({ name: "KafkaJSGroupCoordinatorNotFound", retriable: false });
    } finally {
      await consumer.disconnect();
    }
  });

  it("is not served in plaintext, so the settings above are what gets a client in", async () => {
    const admin = client({ KAFKA_BROKERS: broker.brokers }).admin();
    await expect(admin.connect()).rejects.toThrow();
    await admin.disconnect();
  });

  it("is refused with a wrong password", async () => {
    const producer = client({ ...settingsOf(SHIPMENT), KAFKA_SASL_PASSWORD: `${SHIPMENT.password}-wrong` }).producer();
    await expect(producer.connect()).rejects.toThrow(/SASL SCRAM SHA512 authentication failed/i);
    await producer.disconnect();
  });

  it("refuses a broker whose certificate another CA signed than the one the client trusts", async () => {
    const producer = client({ ...settingsOf(SHIPMENT), KAFKA_TLS_CA_FILE: path.join(dir, "stranger-ca.crt") }).producer();
    await expect(producer.connect()).rejects.toThrow(/self[- ]signed|unable to verify|certificate/i);
    await producer.disconnect();
  });
});
