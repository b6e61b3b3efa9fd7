import type { Producer } from "kafkajs";
import { EVENT_HEADERS, PROTOBUF_CONTENT_TYPE } from "./headers";
import type { EventPublisher, PublishedRecord } from "./publisher";

/**
 * Publishes through a kafkajs producer (acks from all in-sync replicas), grouping a
 * batch by topic into one request per topic. It connects on first use and again after a failure,
 * so a service starts (not ready) while the broker is down and recovers without a restart.
 */
export class KafkaEventPublisher implements EventPublisher {
  #connected: Promise<void> | undefined;

  constructor(private readonly producer: Producer) {}

  async publish(records: readonly PublishedRecord[]): Promise<void> {
    this.#connected ??= this.producer.connect().catch((err: unknown) => {
      this.#connected = undefined;
      throw err;
    });
    await this.#connected;
    const byTopic = new Map<string, { key: string; value: Buffer; headers: Record<string, string> }[]>();
    for (const record of records) {
      const messages = byTopic.get(record.topic) ?? [];
      messages.push({
        key: record.key,
        value: Buffer.from(record.payload.buffer, record.payload.byteOffset, record.payload.byteLength),
        headers: {
          ...record.headers,
          [EVENT_HEADERS.id]: record.eventId,
          [EVENT_HEADERS.type]: record.type,
          [EVENT_HEADERS.contentType]: PROTOBUF_CONTENT_TYPE,
        },
      });
      byTopic.set(record.topic, messages);
    }
    await this.producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
  }
}
