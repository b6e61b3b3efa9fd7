import { invalidateOnEvents, type BroadcastConsumer, type InvalidatedByEvents } from "@tawsil/events";
import type { Logger } from "@tawsil/logging";
import type { Kafka } from "kafkajs";
import { MERCHANT_EVENTS_TOPIC } from "@tawsil/topology";


/** Every merchant change drops that merchant from this replica's cache (decisions: within seconds). */
export function listenToMerchantChanges(kafka: Kafka, cache: InvalidatedByEvents, logger: Logger): BroadcastConsumer {
  return invalidateOnEvents({ kafka, groupPrefix: "shipment.merchant-cache", topics: [MERCHANT_EVENTS_TOPIC], logger, cache });
}
