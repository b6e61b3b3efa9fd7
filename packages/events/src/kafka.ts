import { Kafka, logLevel, type LogEntry } from "kafkajs";
import type { Logger } from "@tawsil/logging";
import type { KafkaConnection } from "./kafka-connection";

/** A client's name and logger, and where and how it connects (kafkaConnection builds that part from the settings). */
export interface KafkaSettings extends KafkaConnection {
  readonly clientId: string;
  readonly logger: Logger;
}

const LEVELS: Record<number, "error" | "warn" | "info" | "debug"> = {
  [logLevel.ERROR]: "error",
  [logLevel.WARN]: "warn",
  [logLevel.INFO]: "info",
  [logLevel.DEBUG]: "debug",
};

/**
 * The one place a process's kafkajs client is built: logs through the service's pino logger
 * (warnings and errors only), TLS and SASL when its connection has them.
 */
export function createKafka(settings: KafkaSettings): Kafka {
  const log = settings.logger.child({ component: "kafkajs" });
  return new Kafka({
    clientId: settings.clientId,
    brokers: [...settings.brokers],
    // The CA alone is trusted, so a broker with a certificate from any other CA is refused.
    ...(settings.tls ? { ssl: { ...settings.tls } } : {}),
    ...(settings.sasl ? { sasl: settings.sasl } : {}),
    logLevel: logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      const { message, ...extra } = entry.log;
      log[LEVELS[entry.level] ?? "info"]({ namespace: entry.namespace, ...extra }, message);
    },
    retry: { initialRetryTime: 100, retries: 8 },
  });
}
