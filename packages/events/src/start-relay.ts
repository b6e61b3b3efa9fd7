import type { Logger } from "@tawsil/logging";
import type { Kafka } from "kafkajs";
import { KafkaEventPublisher } from "./kafka-publisher";
import { OutboxRelay } from "./outbox-relay";
import type { RunInTransaction, SqlClient } from "./sql";

/**
 * Starts relaying a service's outbox to Kafka through an idempotent producer. The returned closer
 * finishes the batch in flight and disconnects the producer; register it for shutdown.
 */
export function startOutboxRelay<Tx extends SqlClient>(opts: {
  kafka: Kafka;
  logger: Logger;
  runInTransaction: RunInTransaction<Tx>;
}): { name: string; close(): Promise<void> } {
  // maxInFlightRequests 1 keeps the outbox order on the broker when a request is retried. Not
  // kafkajs's idempotent mode: it demands unlimited retries, which would hold the relay's
  // transaction open forever; a retried duplicate is absorbed by consumers' processed_event.
  const producer = opts.kafka.producer({ maxInFlightRequests: 1, allowAutoTopicCreation: false });
  const relay = new OutboxRelay({
    runInTransaction: opts.runInTransaction,
    publisher: new KafkaEventPublisher(producer),
    logger: opts.logger.child({ component: "outbox-relay" }),
  });
  relay.start();
  return {
    name: "outbox-relay",
    async close() {
      await relay.stop();
      await producer.disconnect();
    },
  };
}
