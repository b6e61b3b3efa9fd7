import { Kafka, logLevel, type LogEntry } from "kafkajs";
import type { Logger } from "@tawsil/logging";
import type { ReadinessCheck } from "@tawsil/rpc";

export interface KafkaSettings {
  readonly clientId: string;
  readonly brokers: readonly string[];
  readonly logger: Logger;
}

const LEVELS: Record<number, "error" | "warn" | "info" | "debug"> = {
  [logLevel.ERROR]: "error",
  [logLevel.WARN]: "warn",
  [logLevel.INFO]: "info",
  [logLevel.DEBUG]: "debug",
};

/** A kafkajs client that logs through the service's pino logger, warnings and errors only. */
export function createKafka(settings: KafkaSettings): Kafka {
  const log = settings.logger.child({ component: "kafkajs" });
  return new Kafka({
    clientId: settings.clientId,
    brokers: [...settings.brokers],
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...extra } = entry.log;
      log[LEVELS[entry.level] ?? "info"]({ namespace: entry.namespace, ...extra }, message);
    },
    retry: { initialRetryTime: 100, retries: 8 },
  });
}

/**
 * Readiness of the broker: one admin connection kept for the process, asked to describe the cluster.
 * A broker that does not answer within the probe's deadline makes the service not ready.
 */
export function kafkaReadinessCheck(kafka: Kafka): ReadinessCheck & { close(): Promise<void> } {
  const admin = kafka.admin();
  let connected: Promise<void> | undefined;
  return {
    name: "kafka",
    async check() {
      connected ??= admin.connect().catch((err: unknown) => {
        connected = undefined;
        throw err;
      });
      await connected;
      await admin.describeCluster();
    },
    async close() {
      if (connected) await admin.disconnect();
    },
  };
}
