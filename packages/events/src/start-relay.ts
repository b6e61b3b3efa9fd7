import { listenForNotifications } from "@tawsil/db";
import type { Logger } from "@tawsil/logging";
import type { Kafka } from "kafkajs";
import type { Registry } from "prom-client";
import { KafkaEventPublisher } from "./kafka-publisher";
import { registerOutboxLag } from "./outbox-lag";
import { OutboxRelay } from "./outbox-relay";
import { OUTBOX_CHANNEL } from "./outbox-writer";
import type { RunInTransaction, SqlClient } from "./sql";

/** With notifications, polling is only the safety net: a constant-cost query this often. */
const SAFETY_POLL_MS = 10_000;

/**
 * A notified relay waits this long for more commits before claiming its batch (OutboxRelay's
 * lingerMs; Kafka's producers linger 5 ms by default). It adds at most this to an event's way
 * to its consumers (decisions.md section 9 allows a second to the tracking projection) and sends the
 * creates of that moment as one batch: one claim, one produce request, one fetch and transaction
 * per consumer group for several events instead of one each.
 */
const RELAY_LINGER_MS = 10;

/**
 * Starts relaying a service's outbox to Kafka through an idempotent producer. It sleeps until a
 * writer's transaction commits (LISTEN on the database at `databaseUrl`, NOTIFY from writeOutbox),
 * so an idle service costs nothing. The returned closer finishes the batch in flight and
 * disconnects the producer; register it for shutdown. With `registry` (the process's /metrics),
 * the outbox's lag is exported there (outbox-lag.ts), for the OutboxLag alerts.
 */
export async function startOutboxRelay<Tx extends SqlClient>(opts: {
  kafka: Kafka;
  logger: Logger;
  runInTransaction: RunInTransaction<Tx>;
  databaseUrl: string;
  registry?: Registry;
}): Promise<{ name: string; close(): Promise<void> }> {
  // maxInFlightRequests 1 keeps the outbox order on the broker when a request is retried. Not
  // kafkajs's idempotent mode: it demands unlimited retries, which would hold the relay's
  // transaction open forever; a retried duplicate is absorbed by consumers' processed_event.
  const producer = opts.kafka.producer({ maxInFlightRequests: 1, allowAutoTopicCreation: false });
  const relay = new OutboxRelay({
    runInTransaction: opts.runInTransaction,
    publisher: new KafkaEventPublisher(producer),
    logger: opts.logger.child({ component: "outbox-relay" }),
    idleMs: SAFETY_POLL_MS,
    lingerMs: RELAY_LINGER_MS,
  });
  const listener = await listenForNotifications({ url: opts.databaseUrl, channel: OUTBOX_CHANNEL, onNotify: () => relay.wake(), logger: opts.logger });
  if (opts.registry) registerOutboxLag(opts.registry, opts.runInTransaction);
  relay.start();
  return {
    name: "outbox-relay",
    async close() {
      await listener.close();
      await relay.stop();
      await producer.disconnect();
    },
  };
}
