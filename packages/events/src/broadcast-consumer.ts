import { randomUUID } from "node:crypto";
import type { Logger } from "@tawsil/logging";
import type { Consumer, Kafka } from "kafkajs";
import { restartAfterCrash } from "./crash-restart";

export interface BroadcastEvent {
  readonly key: string;
  readonly payload: Uint8Array;
  readonly topic: string;
  readonly partition: number;
  /** The message's offset, as kafkajs gives it (a decimal string). */
  readonly offset: string;
}

export interface BroadcastConsumerOptions {
  readonly kafka: Kafka;
  /** `<service>.<purpose>`; each process joins its own group `<prefix>.<random>`. */
  readonly groupPrefix: string;
  readonly topics: readonly string[];
  readonly logger: Logger;
  /** Applies one event to this process's memory; throwing only logs (the entry ages out). */
  readonly onEvent: (event: BroadcastEvent) => void;
  /**
   * Called each time the consumer (re)joins: events may have passed while it was away, so what
   * was derived from them (a cache) must be dropped.
   */
  readonly onRejoin: () => void;
  /**
   * Reads each topic from its beginning instead of its end: for a compacted topic whose last
   * message per key is the state (the caller rebuilds it; a rejoin replays it all again).
   */
  readonly fromBeginning?: boolean;
}

/**
 * Delivers every event of the topics to every process, for state each replica keeps in memory
 * (cache invalidation), as opposed to a consumer group where each event reaches one replica. Each
 * process joins a group of its own, starts at the end of the log (or its beginning, when asked)
 * and commits nothing: the group leaves no offsets behind, and a restart never replays old events
 * unless asked to (the caller starts empty).
 */
export class BroadcastConsumer {
  readonly #consumer: Consumer;
  readonly #log: Logger;
  #stopped = false;
  #retry: NodeJS.Timeout | undefined;
  #listening = false;

  constructor(private readonly opts: BroadcastConsumerOptions) {
    const groupId = `${opts.groupPrefix}.${randomUUID()}`;
    this.#consumer = opts.kafka.consumer({ groupId, allowAutoTopicCreation: false });
    this.#log = opts.logger.child({ consumerGroup: groupId });
    restartAfterCrash(this.#consumer, () => this.start(), this.#log, () => this.#stopped);
  }

  async start(): Promise<void> {
    if (!this.#listening) {
      this.#listening = true;
      this.#consumer.on(this.#consumer.events.GROUP_JOIN, () => this.opts.onRejoin());
    }
    await this.#consumer.connect();
    await this.#consumer.subscribe({ topics: [...this.opts.topics], fromBeginning: this.opts.fromBeginning ?? false });
    await this.#consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        try {
          this.opts.onEvent({ topic, partition, offset: message.offset, key: message.key?.toString() ?? "", payload: message.value ?? new Uint8Array() });
        } catch (err) {
          this.#log.warn({ err, topic, offset: message.offset }, "a broadcast event could not be applied");
        }
      },
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    await this.#consumer.disconnect();
  }

  /**
   * Starts without holding up the caller, retrying with backoff while the broker or the topic is
   * missing: what this feeds (a cache bounded by its own max age) works meanwhile, only staler.
   */
  startInBackground(retryMs = 1_000, maxRetryMs = 30_000): void {
    this.start().catch((err: unknown) => {
      if (this.#stopped) return;
      this.#log.warn({ err, retryMs }, "broadcast consumer could not start; retrying");
      void this.#consumer.disconnect().catch(() => undefined);
      this.#retry = setTimeout(() => this.startInBackground(Math.min(retryMs * 2, maxRetryMs), maxRetryMs), retryMs);
    });
  }
}

/** What a per-process cache of another service's data exposes to that service's events. */
export interface InvalidatedByEvents {
  invalidate(key: string): void;
  clear(): void;
}

/**
 * Keeps a per-process cache fresh from the owner's events: each event drops the entry of its key
 * (topic keys are aggregate ids), and a (re)join drops everything, since events may have passed.
 */
export function invalidateOnEvents(opts: {
  kafka: Kafka;
  groupPrefix: string;
  topics: readonly string[];
  logger: Logger;
  cache: InvalidatedByEvents;
}): BroadcastConsumer {
  return new BroadcastConsumer({
    kafka: opts.kafka,
    groupPrefix: opts.groupPrefix,
    topics: opts.topics,
    logger: opts.logger,
    onEvent: (event) => opts.cache.invalidate(event.key),
    onRejoin: () => opts.cache.clear(),
  });
}
