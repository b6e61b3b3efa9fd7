import type { Kafka } from "kafkajs";
import { createKafka, kafkaReadinessCheck, type KafkaSettings } from "./kafka";

export interface ServiceKafka {
  readonly kafka: Kafka;
  readonly readiness: ReturnType<typeof kafkaReadinessCheck>;
  readonly name: "kafka";
  close(): Promise<void>;
}

/** A service's broker connection: the kafkajs client, its readiness probe and its closer. */
export function connectKafka(settings: KafkaSettings): ServiceKafka {
  const kafka = createKafka(settings);
  const readiness = kafkaReadinessCheck(kafka);
  return { kafka, readiness, name: "kafka", close: () => readiness.close() };
}
