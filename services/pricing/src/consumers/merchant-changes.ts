import { invalidateOnEvents, type BroadcastConsumer, type InvalidatedByEvents } from "@tawsil/events";
import type { Logger } from "@tawsil/logging";
import type { Kafka } from "kafkajs";
import { MERCHANT_EVENTS_TOPIC } from "@tawsil/topology";


/** Every merchant change drops that merchant's rate card from this replica's cache. */
export function listenToMerchantChanges(kafka: Kafka, cache: InvalidatedByEvents, logger: Logger): BroadcastConsumer {
  return invalidateOnEvents({ kafka, groupPrefix: "pricing.rate-card-cache", topics: [MERCHANT_EVENTS_TOPIC], logger, cache });
}
