/**
 * A broker whose client listener is SASL_SSL with SCRAM-SHA-512, as a Strimzi listener with
 * `tls: true` and `authentication: scram-sha-512` is: for the tests that prove the project's client
 * settings against a real broker. `make dev` and the other tests keep a plaintext, open broker.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SASLOptions } from 'kafkajs';
import type { ConnectionOptions } from 'node:tls';

export interface ScramUser {
  readonly name: string;
  readonly password: string;
}

export interface BrokerSecurity {
  /** The broker's private key (unencrypted PKCS#8 PEM) and certificate (PEM, with a SAN for 127.0.0.1). */
  readonly key: string;
  readonly certificate: string;
  /** PEM of the CA that signed the certificate: the broker's own client (inter-broker) trusts it. */
  readonly ca: string;
  /**
   * SCRAM-SHA-512 users written into the metadata when the storage is formatted (KRaft keeps the
   * credentials there). The first is the broker's own inter-broker user and the probes' user.
   */
  readonly users: readonly [ScramUser, ...ScramUser[]];
  /**
   * Kafka's StandardAuthorizer, as a Strimzi cluster with `authorization: simple` runs: every user
   * but the broker's own may only do what an ACL grants it (no ACL, no access).
   */
  readonly authorizer?: boolean;
}

/** How a kafkajs client of the infra (probes, readiness, topics) reaches the broker. */
export interface ClientAccess {
  readonly ssl?: ConnectionOptions;
  readonly sasl?: SASLOptions;
}

export const PLAINTEXT: ClientAccess = {};

/** The broker's own first user over TLS trusting its CA: what the infra's probes connect as. */
export function probeAccess(security: BrokerSecurity | undefined): ClientAccess {
  if (!security) return PLAINTEXT;
  const [admin] = security.users;
  return { ssl: { ca: security.ca }, sasl: { mechanism: 'scram-sha-512', username: admin.name, password: admin.password } };
}

/** Writes the PEM stores into the data dir; returns the server.properties entries of a SASL_SSL client listener. */
export async function securedListenerProperties(dataDir: string, security: BrokerSecurity): Promise<Record<string, string>> {
  const keystore = path.join(dataDir, 'broker-keystore.pem');
  const truststore = path.join(dataDir, 'broker-truststore.pem');
  // A PEM keystore file holds the key, then its certificate chain; no password when the key is unencrypted.
  await writeFile(keystore, `${security.key.trim()}\n${security.certificate.trim()}\n`, { mode: 0o600 });
  await writeFile(truststore, `${security.ca.trim()}\n`);
  const [broker] = security.users;
  return {
    'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
    'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="${broker.name}" password="${broker.password}";`,
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.location': keystore,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': truststore,
    ...(security.authorizer
      ? {
          'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
          // The broker's user, and ANONYMOUS: the principal of the plaintext controller listener
          // (loopback only), over which this node's broker registers with its own controller.
          'super.users': `User:${broker.name};User:ANONYMOUS`,
        }
      : {}),
  };
}

/** StorageTool format arguments creating the SCRAM users. */
export function scramFormatArgs(security: BrokerSecurity | undefined): string[] {
  return (security?.users ?? []).flatMap((u) => ['--add-scram', `SCRAM-SHA-512=[name=${u.name},password=${u.password}]`]);
}
