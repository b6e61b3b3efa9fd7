import { randomUUID } from "node:crypto";
import type { Logger } from "@tawsil/logging";
import type { Admin, Consumer, Kafka } from "kafkajs";
import { restartAfterCrash } from "./crash-restart";
import { EVENT_HEADERS } from "./headers";

export interface BroadcastEvent {
  readonly key: string;
  readonly payload: Uint8Array;
  readonly topic: string;
  /** The payload's protobuf message name (the event-type header); "" when absent. */
  readonly type: string;
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
  /**
   * For state that must survive a restart (revocations): each (re)join starts at the first event
   * at or after this time (epoch ms) instead of the end of the log.
   */
  readonly replaySince?: () => number;
  /** Told true when the consumer has joined and receives events, false when it stopped or crashed. */
  readonly onStatus?: (receiving: boolean) => void;
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
  #admin: Promise<Admin> | undefined;

  constructor(private readonly opts: BroadcastConsumerOptions) {
    const groupId = `${opts.groupPrefix}.${randomUUID()}`;
    this.#consumer = opts.kafka.consumer({ groupId, allowAutoTopicCreation: false });
    this.#log = opts.logger.child({ consumerGroup: groupId });
    restartAfterCrash(this.#consumer, () => this.start(), this.#log, () => this.#stopped);
  }

  async start(): Promise<void> {
    if (!this.#listening) {
      this.#listening = true;
      this.#consumer.on(this.#consumer.events.GROUP_JOIN, ({ payload }) => {
        this.opts.onRejoin();
        this.opts.onStatus?.(true);
        if (this.opts.replaySince) void this.#seek(this.opts.replaySince(), payload.memberAssignment);
      });
      this.#consumer.on(this.#consumer.events.CRASH, () => this.opts.onStatus?.(false));
      this.#consumer.on(this.#consumer.events.STOP, () => this.opts.onStatus?.(false));
    }
    await this.#consumer.connect();
    // Replaying: a fresh group starts at the beginning until the seek below moves it forward, so
    // nothing younger than `replaySince` is skipped even if the seek fails.
    const fromBeginning = (this.opts.fromBeginning ?? false) || this.opts.replaySince !== undefined;
    await this.#consumer.subscribe({ topics: [...this.opts.topics], fromBeginning });
    await this.#consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        try {
          const type = message.headers?.[EVENT_HEADERS.type]?.toString() ?? "";
          this.opts.onEvent({ topic, partition, offset: message.offset, type, key: message.key?.toString() ?? "", payload: message.value ?? new Uint8Array() });
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
    if (this.#admin) await (await this.#admin.catch(() => undefined))?.disconnect();
  }

  /** Moves each assigned partition to its first offset at or after `since` (the end when there is none). */
  async #seek(since: number, assignment: Record<string, number[]>): Promise<void> {
    try {
      this.#admin ??= (async () => {
        const admin = this.opts.kafka.admin();
        await admin.connect();
        return admin;
      })().catch((err: unknown) => {
        this.#admin = undefined;
        throw err;
      });
      const admin = await this.#admin;
      for (const [topic, partitions] of Object.entries(assignment)) {
        const offsets = await admin.fetchTopicOffsetsByTimestamp(topic, since);
        for (const { partition, offset } of offsets) if (partitions.includes(partition)) this.#consumer.seek({ topic, partition, offset });
      }
    } catch (err) {
      // Consumption goes on from the beginning of the log: more to read, nothing missed.
      this.#log.warn({ err }, "could not seek the broadcast consumer by time; reading from the beginning");
    }
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
