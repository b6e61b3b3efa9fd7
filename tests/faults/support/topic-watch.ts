/**
 * Reads shipment.shipment.events.v1 from its beginning, in a consumer group of its own, for the
 * ledger: every ShipmentChanged the outbox relay published, duplicates included (the relay is
 * at-least-once; consumers dedupe on event-id, so the ledger counts created facts per shipment).
 */
import { randomUUID } from "node:crypto";
import { fromBinary } from "@bufbuild/protobuf";
import { Kafka, logLevel, type Consumer } from "kafkajs";
import { ShipmentChangedSchema } from "../../../packages/proto/src/gen/tawsil/shipment/v1/events_pb";
import { publicFactOf } from "../../../services/webhook/src/consumers/shipment-events";
import { SHIPMENT_EVENTS_TOPIC } from "../../../packages/topology/src";

export interface SeenEvent {
  readonly eventId: string;
  readonly shipmentId: string;
  readonly version: bigint;
  /** The public status it announces, when it changed one (what a webhook must follow). */
  readonly publicStatus?: string;
}

export interface TopicWatch {
  readonly events: SeenEvent[];
  close(): Promise<void>;
}

export async function watchShipmentEvents(brokers: string[]): Promise<TopicWatch> {
  const kafka = new Kafka({ clientId: "faults-ledger", brokers, logLevel: logLevel.NOTHING, retry: { retries: 1000, maxRetryTime: 5_000 } });
  const consumer: Consumer = kafka.consumer({ groupId: `faults-ledger-${randomUUID()}` });
  const events: SeenEvent[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic: SHIPMENT_EVENTS_TOPIC, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (!message.value) return;
      const changed = fromBinary(ShipmentChangedSchema, message.value);
      const fact = publicFactOf(message.value, new Date());
      events.push({
        eventId: String(message.headers?.["event-id"] ?? ""),
        shipmentId: changed.shipment?.shipmentId ?? "",
        version: changed.shipment?.version ?? 0n,
        ...(fact ? { publicStatus: fact.status } : {}),
      });
    },
  });
  return { events, close: () => consumer.disconnect() };
}
