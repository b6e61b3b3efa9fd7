/**
 * The Kafka topics, `<owner>.<aggregate>.events.v1` keyed by aggregate id. Producers, consumers,
 * scripts and tests name a topic by its constant here; the manifests (deploy/base/kafka-topics.yaml,
 * the KafkaUsers' ACLs) and the processes' READMEs cannot import it, so tests/deploy compares them
 * against TOPICS.
 */
export const SHIPMENT_EVENTS_TOPIC = "shipment.shipment.events.v1";
export const ASSIGNMENT_EVENTS_TOPIC = "dispatch.assignment.events.v1";
export const DRIVER_LOCATION_TOPIC = "dispatch.driver-location.v1";
export const MERCHANT_EVENTS_TOPIC = "merchant.merchant.events.v1";
export const CITY_STAFFING_TOPIC = "dispatch.city-staffing.v1";

export interface TopicSpec {
  readonly topic: string;
  readonly numPartitions: number;
  /** Compacted: the broker keeps the last message per key, and drops the older ones in time. */
  readonly compacted?: boolean;
}

/** Every topic of the architecture, as the broker holds it; created before any service starts. */
export const TOPICS: readonly TopicSpec[] = [
  { topic: SHIPMENT_EVENTS_TOPIC, numPartitions: 3 },
  { topic: ASSIGNMENT_EVENTS_TOPIC, numPartitions: 3 },
  { topic: DRIVER_LOCATION_TOPIC, numPartitions: 3 },
  { topic: MERCHANT_EVENTS_TOPIC, numPartitions: 3 },
  // Compacted: the last message per city is its state, which pricing rebuilds from the beginning.
  { topic: CITY_STAFFING_TOPIC, numPartitions: 3, compacted: true },
];

/** One topic's spec, for a test or a script that needs that topic alone on its broker. */
export function topicSpec(topic: string): TopicSpec {
  const spec = TOPICS.find((t) => t.topic === topic);
  if (!spec) throw new Error(`${topic} is not one of the architecture's topics`);
  return spec;
}
