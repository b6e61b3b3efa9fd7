import type { Kafka } from "kafkajs";
import { createKafka, type KafkaSettings } from "./kafka";

export interface ServiceKafka {
  readonly kafka: Kafka;
}

/**
 * A service's broker client, shared by its relay, producers and consumers (each connects and
 * closes its own). Deliberately not part of any readiness: a service with an outbox keeps taking
 * writes while the broker is away (the relay sends them later; its lag is the OutboxLag alert), and
 * a consumer's reads serve what it projected so far (consumer lag has alerts of its own).
 */
export function connectKafka(settings: KafkaSettings): ServiceKafka {
  return { kafka: createKafka(settings) };
}
