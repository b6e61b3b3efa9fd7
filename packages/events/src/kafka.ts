import { Kafka, logLevel, type LogEntry } from "kafkajs";
import type { Logger } from "@tawsil/logging";

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
