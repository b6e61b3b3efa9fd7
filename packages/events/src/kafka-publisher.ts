import { SpanStatusCode } from "@opentelemetry/api";
import type { Producer } from "kafkajs";
import { EVENT_HEADERS, PROTOBUF_CONTENT_TYPE } from "./headers";
import { startPublishSpan } from "./publish-span";
import type { EventPublisher, PublishedRecord } from "./publisher";

/**
 * Publishes through a kafkajs producer (acks from all in-sync replicas), grouping a
 * batch by topic into one request per topic. It connects on first use and again after a failure,
 * so a service starts (not ready) while the broker is down and recovers without a restart. A record
 * of a sampled trace is published in a span of that trace (publish-span.ts), ended on the broker's answer.
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
    const spans = [];
    for (const record of records) {
      const messages = byTopic.get(record.topic) ?? [];
      const { span, headers } = startPublishSpan(record);
      if (span) spans.push(span);
      messages.push({
        key: record.key,
        value: Buffer.from(record.payload.buffer, record.payload.byteOffset, record.payload.byteLength),
        headers: {
          ...headers,
          [EVENT_HEADERS.id]: record.eventId,
          [EVENT_HEADERS.type]: record.type,
          [EVENT_HEADERS.contentType]: PROTOBUF_CONTENT_TYPE,
        },
      });
      byTopic.set(record.topic, messages);
    }
    try {
      await this.producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
    } catch (error) {
      for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      for (const span of spans) span.end();
    }
  }
}
