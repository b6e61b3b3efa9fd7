import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import type { Logger } from "@tawsil/logging";
import type { Consumer, EachBatchPayload, IHeaders, Kafka, KafkaMessage } from "kafkajs";
import { isDatabaseUnavailable, sqlStateOf } from "@tawsil/db/failures";
import { Counter, type Registry } from "prom-client";
import { restartAfterCrash } from "./crash-restart";
import { DeferredCommits } from "./deferred-commits";
import { claimedAlone, claimEvent, claimEvents, firstWriteParameter, type AloneWrites } from "./claims";
import { describeError, lockAndCheckWaiting, park, PARKED_BEHIND } from "./dead-letters";
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

/**
 * Applies several events of one partition, in their order, inside one transaction, with the same
 * effect as the EventHandler applying each in turn, but free to write them set-based (one
 * statement for many rows). Throwing rolls the chunk back; its events are then applied one by one
 * through the EventHandler.
 */
export type BatchEventHandler<Tx extends SqlClient> = (tx: Tx, events: readonly ConsumedEvent[]) => Promise<void>;

export interface IdempotentConsumerOptions<Tx extends SqlClient> {
  readonly kafka: Kafka;
  /** `<service>.<purpose>`; also scopes the processed-event records. */
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly runInTransaction: RunInTransaction<Tx>;
  readonly handler: EventHandler<Tx>;
  /** When given, a chunk's fresh events go to it together instead of to `handler` one at a time. */
  readonly batchHandler?: BatchEventHandler<Tx>;
  /**
   * True for an event the handler would apply as a no-op (one this service ignores): it is then
   * neither claimed nor given a transaction, only its offset is committed. Skipping an event that
   * changes nothing is as idempotent as applying it, so the guarantees hold; what it saves is the
   * transaction and the claim of every event that is none of this service's business.
   */
  readonly ignores?: (event: ConsumedEvent) => boolean | Promise<boolean>;
  readonly logger: Logger;
  /**
   * Events whose whole effect is a few idempotent writes (applying one twice leaves what applying
   * it once does), applied alone in ONE statement with their claim, outside any transaction: one
   * round trip instead of BEGIN, the claim, the write and COMMIT, for the event a fetch most often
   * brings a partition. `writesFor` gives an event's writes (claims.ts AloneWrites, parameters
   * numbered from `first`), or undefined for an event the handler must apply; an event the
   * statement did not claim goes the ordinary way (a transaction, the claim, the handler).
   */
  readonly alone?: { readonly sql: SqlClient; readonly writesFor: (event: ConsumedEvent, first: number) => AloneWrites | undefined };
  /** Observes every delivery, duplicates included (metrics, tests). */
  readonly onDelivery?: (event: ConsumedEvent, applied: boolean) => void;
  /**
   * Poison events (dead-letters.ts): an event whose handler failed `maxAttempts` times (failures of
   * a database that is down, or of a transaction that lost a race, do not count: they say nothing
   * of the event) is parked in the service's `parked_event` table, and so is every later event of
   * its key; the partition moves on. Without it a failing event is retried forever.
   */
  readonly deadLetters?: DeadLetterOptions;
}

export interface DeadLetterOptions {
  readonly maxAttempts: number;
  readonly clock?: () => Date;
  /** Where `consumer_events_parked_total` goes (the process's /metrics). */
  readonly registry?: Registry;
}

/** The metric deploy/base/alerts read as parked events (the <Service>EventsParked alerts). */
export const PARKED_EVENTS_METRIC = "consumer_events_parked_total";

/** A chunk holding an event of a key that waits behind a parked event: applied one by one instead. */
class KeyWaitsError extends Error {}

/** A serialization failure or a deadlock: the transaction lost a race, the event is not at fault. */
const TRANSIENT_STATES = new Set(["40001", "40P01"]);

/**
 * Most events one transaction applies: bounds how long a batch holds its row locks and how much a
 * failure rolls back. A busy partition (driver locations) then costs one transaction and one offset
 * commit per chunk instead of per event.
 */
const MAX_EVENTS_PER_TRANSACTION = 100;

/**
 * How long an applied event's offset waits for others to be committed with it: one OffsetCommit
 * for what a consumer applied in that time, not one per event (each a broker write).
 */
const COMMIT_DELAY_MS = 200;

/**
 * Applies each event exactly once although Kafka delivers at least once: the event id is recorded
 * in `processed_event` in the same transaction as the handler's writes, so a redelivery finds it and
 * changes nothing. The offset is committed only after that transaction commits; a crash in between
 * redelivers the events, which are then skipped.
 *
 * The events kafkajs fetched together for one partition are applied in order in one transaction
 * (up to MAX_EVENTS_PER_TRANSACTION); the offsets of what was applied within COMMIT_DELAY_MS are
 * committed in one request (deferred-commits.ts), so events that come one at a time cost one
 * OffsetCommit a moment, not one each. When a handler fails, the
 * chunk rolls back and its events are applied again one by one: those before the failing one
 * commit, and the failing one is retried alone, as if batches did not exist.
 */
export class IdempotentConsumer<Tx extends SqlClient> {
  readonly #consumer: Consumer;
  readonly #log: Logger;
  #stopped = false;
  /** Failed attempts of each event still failing, by event id (in memory: a restart counts afresh). */
  readonly #attempts = new Map<string, number>();
  readonly #parked: Counter<"consumer_group" | "reason"> | undefined;
  readonly #commits: DeferredCommits;

  constructor(private readonly opts: IdempotentConsumerOptions<Tx>) {
    this.#consumer = opts.kafka.consumer({ groupId: opts.groupId, allowAutoTopicCreation: false });
    this.#log = opts.logger.child({ consumerGroup: opts.groupId });
    this.#commits = new DeferredCommits(this.#consumer, COMMIT_DELAY_MS, (err) => this.#log.info({ err }, "offsets not committed (a rebalance, or the broker away): their events come again and change nothing"));
    restartAfterCrash(this.#consumer, () => this.start(), this.#log, () => this.#stopped);
    for (const event of [this.#consumer.events.REBALANCING, this.#consumer.events.CRASH]) this.#consumer.on(event, () => this.#commits.discard());
    const registry = opts.deadLetters?.registry;
    if (registry) {
      this.#parked = (registry.getSingleMetric(PARKED_EVENTS_METRIC) as Counter<"consumer_group" | "reason"> | undefined) ??
        new Counter({ name: PARKED_EVENTS_METRIC, help: "Events a consumer parked as dead letters: failing (reason=failed) or waiting behind one of their key (reason=behind).", labelNames: ["consumer_group", "reason"] as const, registers: [registry] });
      for (const reason of ["failed", "behind"]) this.#parked.inc({ consumer_group: opts.groupId, reason }, 0);
    }
  }

  async start(): Promise<void> {
    await this.#consumer.connect();
    await this.#consumer.subscribe({ topics: [...this.opts.topics], fromBeginning: true });
    await this.#consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: (payload) => this.#handleBatch(payload) });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    // While still a member of the group: once it has left, the broker takes no commit from it.
    await this.#commits.flush();
    await this.#consumer.disconnect();
  }

  async #handleBatch({ batch, heartbeat, isRunning, isStale, resolveOffset }: EachBatchPayload): Promise<void> {
    const { topic, partition } = batch;
    for (let start = 0; start < batch.messages.length; start += MAX_EVENTS_PER_TRANSACTION) {
      if (!isRunning() || isStale()) return; // stopping, or the partition moved: the rest is redelivered
      const messages = batch.messages.slice(start, start + MAX_EVENTS_PER_TRANSACTION);
      if (messages.length === 1) await this.#handle(topic, partition, messages[0]!);
      else await this.#handleChunk(topic, partition, messages);
      // The next fetch starts after what is committed; an unresolved offset would be fetched again.
      resolveOffset(messages[messages.length - 1]!.offset);
      await heartbeat();
    }
  }

  /** Several events in one transaction; on any failure, one by one instead. */
  async #handleChunk(topic: string, partition: number, messages: readonly KafkaMessage[]): Promise<void> {
    const events = messages.map((message) => eventOf(topic, partition, message));
    const ignored = await this.#ignored(events);
    if (ignored.every(Boolean)) {
      this.#commits.add(topic, partition, nextOffset(messages[messages.length - 1]!));
      for (const [i, event] of events.entries()) {
        if (event) this.opts.onDelivery?.(event, false);
        else this.#skipped(topic, partition, messages[i]!);
      }
      return;
    }
    // A chunk holding an event that failed before fails again: straight to one by one, where attempts count.
    if (events.some((event) => event && this.#attempts.has(event.eventId))) {
      for (const message of messages) await this.#handle(topic, partition, message);
      return;
    }
    let applied: boolean[];
    try {
      applied = await this.opts.runInTransaction(async (tx) => {
        const claimable = events.filter((event, i): event is ConsumedEvent => event !== undefined && !ignored[i]);
        const fresh = await claimEvents(tx, this.opts.groupId, claimable, this.opts.deadLetters !== undefined);
        if (fresh === "waits") throw new KeyWaitsError();
        const outcomes: boolean[] = [];
        const batch: { event: ConsumedEvent; message: KafkaMessage }[] = [];
        for (const [i, event] of events.entries()) {
          // Applied before (a redelivery), or a second copy within this very batch: only the first applies.
          const apply = event !== undefined && fresh.delete(event.eventId);
          if (apply && this.opts.batchHandler) batch.push({ event, message: messages[i]! });
          else if (apply) await this.#inSpan(event, messages[i]!, () => this.opts.handler(tx, event));
          outcomes.push(apply);
        }
        if (batch.length > 0) await this.#inSpans(batch, () => this.opts.batchHandler!(tx, batch.map((b) => b.event)));
        return outcomes;
      });
    } catch (err) {
      if (!(err instanceof KeyWaitsError)) this.#log.warn({ err, topic, partition, events: messages.length }, "a batch of events failed, applying them one by one");
      for (const message of messages) await this.#handle(topic, partition, message);
      return;
    }
    this.#commits.add(topic, partition, nextOffset(messages[messages.length - 1]!));
    for (const [i, event] of events.entries()) {
      if (event) this.opts.onDelivery?.(event, applied[i]!);
      else this.#skipped(topic, partition, messages[i]!);
    }
  }

  /** One event in a transaction of its own. */
  async #handle(topic: string, partition: number, message: KafkaMessage): Promise<void> {
    const event = eventOf(topic, partition, message);
    if (!event) {
      this.#skipped(topic, partition, message);
      this.#commits.add(topic, partition, nextOffset(message));
      return;
    }
    if ((await this.#ignored([event]))[0]) {
      this.#commits.add(topic, partition, nextOffset(message));
      this.opts.onDelivery?.(event, false);
      return;
    }
    let outcome: "applied" | "duplicate" | "behind" | "parked";
    try {
      outcome = (await this.#appliedAlone(event, message)) ? "applied" : await this.#inSpan(event, message, () =>
        this.opts.runInTransaction(async (tx) => {
          let claim = await claimEvent(tx, this.opts.groupId, event, this.opts.deadLetters !== undefined);
          if (claim === "waits") {
            // Checked again under the key's lock, which a replay takes too: it may have just resolved the key.
            if (await lockAndCheckWaiting(tx, this.opts.groupId, event.key)) {
              await park(tx, this.opts.groupId, event, PARKED_BEHIND, 0, this.#now());
              return "behind";
            }
            claim = await claimEvent(tx, this.opts.groupId, event, false);
          }
          if (claim === "duplicate") return "duplicate"; // applied before: a redelivery
          await this.opts.handler(tx, event);
          return "applied";
        }),
      );
    } catch (err) {
      if (!(await this.#parkedAfter(err, event))) {
        this.#log.warn({ err, topic, partition, offset: message.offset, eventId: event.eventId }, "event handling failed, will retry");
        throw err; // kafkajs backs off and redelivers from the uncommitted offset
      }
      outcome = "parked";
    }
    this.#attempts.delete(event.eventId);
    this.#commits.add(topic, partition, nextOffset(message));
    if (outcome === "behind") {
      this.#parked?.inc({ consumer_group: this.opts.groupId, reason: "behind" });
      this.#log.warn({ topic, partition, offset: message.offset, eventId: event.eventId, key: event.key }, "event parked behind an earlier parked event of its key");
    }
    this.opts.onDelivery?.(event, outcome === "applied");
  }

  /**
   * The event applied with its claim in one statement (the `alone` option), when its writes say
   * they can and it was not applied before, waits behind nothing and has not failed before (a
   * failing event goes the ordinary way, where its attempts count). A failure of the statement is
   * left to the ordinary way too, which meets it again (a database away) or applies the event.
   */
  async #appliedAlone(event: ConsumedEvent, message: KafkaMessage): Promise<boolean> {
    const alone = this.opts.alone;
    if (!alone || this.#attempts.has(event.eventId)) return false;
    const checkParked = this.opts.deadLetters !== undefined;
    try {
      const writes = alone.writesFor(event, firstWriteParameter(checkParked));
      if (!writes) return false;
      return await this.#inSpan(event, message, () => claimedAlone(alone.sql, this.opts.groupId, event, checkParked, writes));
    } catch (err) {
      this.#log.info({ err, eventId: event.eventId }, "applying an event in one statement failed; applying it in a transaction instead");
      return false;
    }
  }

  /**
   * Counts a failed attempt and, at the last one, parks the event (true). A database that is down
   * or a transaction that lost a race (serialization failure, deadlock) says nothing about the
   * event: it is retried without counting, however long that lasts.
   */
  async #parkedAfter(err: unknown, event: ConsumedEvent): Promise<boolean> {
    const options = this.opts.deadLetters;
    if (!options || isDatabaseUnavailable(err) || TRANSIENT_STATES.has(sqlStateOf(err) ?? "")) return false;
    const attempts = (this.#attempts.get(event.eventId) ?? 0) + 1;
    this.#attempts.set(event.eventId, attempts);
    if (attempts < options.maxAttempts) return false;
    // Parking can fail too (the database went away meanwhile): the event is then retried, and parked at its next failure.
    await this.opts.runInTransaction((tx) => park(tx, this.opts.groupId, event, describeError(err), attempts, this.#now()));
    this.#parked?.inc({ consumer_group: this.opts.groupId, reason: "failed" });
    this.#log.error({ err, topic: event.topic, partition: event.partition, offset: event.offset, eventId: event.eventId, key: event.key, attempts }, "event parked after its last attempt; its partition moves on");
    return true;
  }

  #now(): Date {
    return this.opts.deadLetters?.clock?.() ?? new Date();
  }

  /** Runs `fn` in a consumer span of the trace the event's producer started. */
  async #inSpan<R>(event: ConsumedEvent, message: KafkaMessage, fn: () => Promise<R>): Promise<R> {
    const parent = propagation.extract(ROOT_CONTEXT, message.headers ?? {}, kafkaHeaderGetter);
    const span = trace.getTracer("@tawsil/events").startSpan(`consume ${event.topic}`, { kind: SpanKind.CONSUMER }, parent);
    try {
      return await context.with(trace.setSpan(parent, span), fn);
    } finally {
      span.end();
    }
  }

  /** Which events the service ignores (an undecodable record counts as ignored: it is skipped anyway). */
  async #ignored(events: readonly (ConsumedEvent | undefined)[]): Promise<boolean[]> {
    const ignores = this.opts.ignores;
    if (!ignores) return events.map((event) => event === undefined);
    return Promise.all(events.map(async (event) => event === undefined || (await ignores(event))));
  }

  /** Runs `fn` for several events, each with its consumer span (the work is theirs together, so it runs in none of them). */
  async #inSpans<R>(items: readonly { event: ConsumedEvent; message: KafkaMessage }[], fn: () => Promise<R>): Promise<R> {
    const tracer = trace.getTracer("@tawsil/events");
    const spans = items.map(({ event, message }) =>
      tracer.startSpan(`consume ${event.topic}`, { kind: SpanKind.CONSUMER }, propagation.extract(ROOT_CONTEXT, message.headers ?? {}, kafkaHeaderGetter)),
    );
    try {
      return await fn();
    } finally {
      for (const span of spans) span.end();
    }
  }

  /** Not a Tawsil event: nothing can apply it, and retrying would block the partition forever. */
  #skipped(topic: string, partition: number, message: KafkaMessage): void {
    this.#log.error({ topic, partition, offset: message.offset }, "skipping a record without an event id");
  }
}

function eventOf(topic: string, partition: number, message: KafkaMessage): ConsumedEvent | undefined {
  const eventId = header(message.headers, EVENT_HEADERS.id);
  if (!eventId) return undefined;
  return {
    eventId,
    type: header(message.headers, EVENT_HEADERS.type) ?? "",
    key: message.key?.toString() ?? "",
    payload: message.value ?? new Uint8Array(),
    topic,
    partition,
    offset: message.offset,
  };
}

function nextOffset(message: KafkaMessage): string {
  return (BigInt(message.offset) + 1n).toString();
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
  options: Pick<IdempotentConsumerOptions<Tx>, "batchHandler" | "ignores" | "deadLetters" | "alone"> = {},
): Promise<{ name: string; close(): Promise<void> }> {
  const consumer = new IdempotentConsumer({ ...subscription, runInTransaction, handler, logger, ...options });
  await consumer.start();
  return { name: `${subscription.groupId}-consumer`, close: () => consumer.stop() };
}
