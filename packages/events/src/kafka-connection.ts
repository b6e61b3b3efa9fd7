import { readFileSync } from "node:fs";
import type { SASLOptions } from "kafkajs";

/** The settings kafkaConnection reads: @tawsil/config's kafkaEnv. */
export interface KafkaConnectionSettings {
  readonly KAFKA_BROKERS: readonly string[];
  readonly KAFKA_TLS_CA_FILE?: string | undefined;
  readonly KAFKA_TLS_CERT_FILE?: string | undefined;
  readonly KAFKA_TLS_KEY_FILE?: string | undefined;
  readonly KAFKA_SASL_MECHANISM?: "scram-sha-512" | undefined;
  readonly KAFKA_SASL_USERNAME?: string | undefined;
  readonly KAFKA_SASL_PASSWORD?: string | undefined;
}

/** TLS to the brokers: only `ca` is trusted (never the system store), and a client certificate for mutual TLS. */
export interface KafkaTls {
  readonly ca: string;
  readonly cert?: string;
  readonly key?: string;
}

/** Where and how a client connects: what createKafka needs besides its name and logger. */
export interface KafkaConnection {
  readonly brokers: readonly string[];
  readonly tls?: KafkaTls;
  readonly sasl?: SASLOptions;
}

/**
 * A process's Kafka connection from its settings, once at start: reads the PEM files and refuses
 * incomplete sets (a certificate without its key, a username without a password, SASL without TLS).
 * Nothing set: plaintext and no authentication, as `make dev` and the tests' brokers are; that the
 * deployed environments set both is checked on their rendered manifests (tests/deploy). Errors
 * name the settings, never their values.
 */
export function kafkaConnection(settings: KafkaConnectionSettings, readFile: (file: string) => string = (file) => readFileSync(file, "utf8")): KafkaConnection {
  const problems = incompleteSets(settings);
  if (problems.length > 0) throw new Error(`Kafka settings: ${problems.join("; ")}`);
  const read = (name: string, file: string) => {
    try {
      return readFile(file);
    } catch (error) {
      throw new Error(`Kafka settings: cannot read ${name} (${file}): ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  };
  const { KAFKA_TLS_CA_FILE: caFile, KAFKA_TLS_CERT_FILE: certFile, KAFKA_TLS_KEY_FILE: keyFile } = settings;
  const tls: KafkaTls | undefined = caFile
    ? {
        ca: read("KAFKA_TLS_CA_FILE", caFile),
        ...(certFile && keyFile ? { cert: read("KAFKA_TLS_CERT_FILE", certFile), key: read("KAFKA_TLS_KEY_FILE", keyFile) } : {}),
      }
    : undefined;
  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = settings;
  const sasl: SASLOptions | undefined = mechanism && username && password ? { mechanism, username, password } : undefined;
  return { brokers: settings.KAFKA_BROKERS, ...(tls ? { tls } : {}), ...(sasl ? { sasl } : {}) };
}

function incompleteSets(s: KafkaConnectionSettings): string[] {
  const problems: string[] = [];
  if (Boolean(s.KAFKA_TLS_CERT_FILE) !== Boolean(s.KAFKA_TLS_KEY_FILE)) problems.push("KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE go together");
  if (s.KAFKA_TLS_CERT_FILE && !s.KAFKA_TLS_CA_FILE) problems.push("a client certificate needs KAFKA_TLS_CA_FILE");
  const sasl = [s.KAFKA_SASL_MECHANISM, s.KAFKA_SASL_USERNAME, s.KAFKA_SASL_PASSWORD].filter(Boolean).length;
  if (sasl > 0 && sasl < 3) problems.push("KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD go together");
  // SCRAM proves the password without sending it, but the session after it would be readable and forgeable.
  if (sasl > 0 && !s.KAFKA_TLS_CA_FILE) problems.push("SASL needs TLS: set KAFKA_TLS_CA_FILE");
  return problems;
}
