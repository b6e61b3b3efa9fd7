import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import type { Logger } from "@tawsil/logging";
import type { Consumer, EachMessagePayload, IHeaders, Kafka } from "kafkajs";
import { restartAfterCrash } from "./crash-restart";
import { EVENT_HEADERS } from "./headers";
import type { RunInTransaction, SqlClient } from "./sql";

export interface ConsumedEvent {
  readonly eventId: string;
  readonly type: string;
  readonly key: string;
  readonly payload: Uint8Array;
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/** Applies one event inside the consumer's transaction; throwing rolls everything back and retries. */
export type EventHandler<Tx extends SqlClient> = (tx: Tx, event: ConsumedEvent) => Promise<void>;

export interface IdempotentConsumerOptions<Tx extends SqlClient> {
  readonly kafka: Kafka;
  /** `<service>.<purpose>`; also scopes the processed-event records. */
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly runInTransaction: RunInTransaction<Tx>;
  readonly handler: EventHandler<Tx>;
  readonly logger: Logger;
  /** Observes every delivery, duplicates included (metrics, tests). */
  readonly onDelivery?: (event: ConsumedEvent, applied: boolean) => void;
}

const CLAIM_EVENT = `INSERT INTO processed_event (consumer_group, event_id) VALUES ($1, $2::uuid) ON CONFLICT DO NOTHING`;

/**
 * Applies each event exactly once although Kafka delivers at least once: the event id is recorded
 * in `processed_event` in the same transaction as the handler's writes, so a redelivery finds it and
 * changes nothing. The offset is committed only after that transaction commits; a crash in between
 * redelivers the event, which is then skipped.
 */
export class IdempotentConsumer<Tx extends SqlClient> {
  readonly #consumer: Consumer;
  readonly #log: Logger;
  #stopped = false;

  constructor(private readonly opts: IdempotentConsumerOptions<Tx>) {
    this.#consumer = opts.kafka.consumer({ groupId: opts.groupId, allowAutoTopicCreation: false });
    this.#log = opts.logger.child({ consumerGroup: opts.groupId });
    restartAfterCrash(this.#consumer, () => this.start(), this.#log, () => this.#stopped);
  }

  async start(): Promise<void> {
    await this.#consumer.connect();
    await this.#consumer.subscribe({ topics: [...this.opts.topics], fromBeginning: true });
    await this.#consumer.run({ autoCommit: false, eachMessage: (payload) => this.#handle(payload) });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#consumer.disconnect();
  }

  async #handle({ topic, partition, message }: EachMessagePayload): Promise<void> {
    const eventId = header(message.headers, EVENT_HEADERS.id);
    const next = (BigInt(message.offset) + 1n).toString();
    if (!eventId) {
      // Not a Tawsil event: nothing can apply it, and retrying would block the partition forever.
      this.#log.error({ topic, partition, offset: message.offset }, "skipping a record without an event id");
      await this.#consumer.commitOffsets([{ topic, partition, offset: next }]);
      return;
    }
    const event: ConsumedEvent = {
      eventId,
      type: header(message.headers, EVENT_HEADERS.type) ?? "",
      key: message.key?.toString() ?? "",
      payload: message.value ?? new Uint8Array(),
      topic,
      partition,
      offset: message.offset,
    };
    const parent = propagation.extract(ROOT_CONTEXT, message.headers ?? {}, kafkaHeaderGetter);
    const span = trace.getTracer("@tawsil/events").startSpan(`consume ${topic}`, { kind: SpanKind.CONSUMER }, parent);
    try {
      const applied = await context.with(trace.setSpan(parent, span), () =>
        this.opts.runInTransaction(async (tx) => {
          const claimed = await tx.$executeRawUnsafe(CLAIM_EVENT, this.opts.groupId, eventId);
          if (claimed === 0) return false; // applied before: a redelivery
          await this.opts.handler(tx, event);
          return true;
        }),
      );
      await this.#consumer.commitOffsets([{ topic, partition, offset: next }]);
      this.opts.onDelivery?.(event, applied);
    } catch (err) {
      this.#log.warn({ err, topic, partition, offset: message.offset, eventId }, "event handling failed, will retry");
      throw err; // kafkajs backs off and redelivers from the uncommitted offset
    } finally {
      span.end();
    }
  }
}

function header(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

const kafkaHeaderGetter = {
  get: (carrier: IHeaders, key: string) => header(carrier, key),
  keys: (carrier: IHeaders) => Object.keys(carrier),
};

/** Which topics a consumer group reads. */
export interface Subscription {
  readonly kafka: Kafka;
  readonly groupId: string;
  readonly topics: readonly string[];
}

/** An IdempotentConsumer started on `subscription`; the closer stops it (register it before the database). */
export async function startConsumer<Tx extends SqlClient>(
  subscription: Subscription,
  runInTransaction: RunInTransaction<Tx>,
  handler: EventHandler<Tx>,
  logger: Logger,
): Promise<{ name: string; close(): Promise<void> }> {
  const consumer = new IdempotentConsumer({ ...subscription, runInTransaction, handler, logger });
  await consumer.start();
  return { name: `${subscription.groupId}-consumer`, close: () => consumer.stop() };
}
