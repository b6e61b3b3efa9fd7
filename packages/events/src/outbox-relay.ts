import type { Logger } from "@tawsil/logging";
import type { EventPublisher, PublishedRecord } from "./publisher";
import type { RunInTransaction, SqlClient } from "./sql";

export interface OutboxRelayOptions<Tx extends SqlClient> {
  readonly runInTransaction: RunInTransaction<Tx>;
  readonly publisher: EventPublisher;
  readonly logger: Logger;
  /** Rows published per round trip to the broker. */
  readonly batchSize?: number;
  /** Pause between polls when the outbox is empty. */
  readonly idleMs?: number;
  /** Longest pause after repeated failures (the pause doubles from idleMs up to this). */
  readonly maxBackoffMs?: number;
  /**
   * How long a wake-up (a notification, or one that came while a batch was in flight) waits before
   * the next batch is claimed, so the rows committed meanwhile leave with it: a producer's linger.
   * Each batch costs three statements, one produce request and, downstream, a fetch and a
   * transaction in every consumer group, whatever its size. 0: at once.
   */
  readonly lingerMs?: number;
  /**
   * Called after the broker acknowledged a batch and before the rows are marked sent: the window in
   * which a crash makes the relay publish the batch again. Tests use it to crash there on purpose.
   */
  readonly afterPublish?: (records: readonly PublishedRecord[]) => Promise<void> | void;
}

/**
 * Only one relay per database publishes at a time (a transaction-scoped advisory lock), so the
 * outbox's order (seq) is the order on the broker even with several replicas running.
 */
const RELAY_LOCK = 0x7a_77_73_01; // "tws" + 1: any constant unique within the service's database

/**
 * Claims the oldest unsent rows and marks them sent, in one statement: the mark commits only with
 * the transaction, after the broker acknowledged, so a failed publish rolls it back. The relay lock
 * is taken by the same statement (an InitPlan, evaluated once before any row is read): a replica
 * that does not get it claims nothing. But the statement's snapshot is older than its lock: a
 * relay that got the lock just as another committed its batch still reads that batch as unsent.
 * Hence `o.sent_at IS NULL` on the updated row too, which PostgreSQL checks again on the committed
 * version of a row changed since the snapshot (READ COMMITTED's re-check), so such a row is
 * skipped instead of published twice (three racing relays published 403 of 400 events without
 * it, once the pool's statements ran without Prisma in between). UPDATE ... RETURNING keeps no
 * order, so the rows come back with their seq and are put in outbox order here.
 */
const CLAIM_AND_MARK = `UPDATE outbox_event o SET sent_at = now(), attempts = o.attempts + 1
  FROM (SELECT seq FROM outbox_event WHERE sent_at IS NULL AND (SELECT pg_try_advisory_xact_lock(${RELAY_LOCK})) ORDER BY seq LIMIT $1) batch
  WHERE o.seq = batch.seq AND o.sent_at IS NULL
  RETURNING o.seq, o.event_id::text AS "eventId", o.topic, o.key, o.type, o.payload, o.headers`;
const COUNT_FAILURE = `UPDATE outbox_event SET attempts = attempts + 1 WHERE event_id = ANY($1::uuid[])`;

/**
 * Moves committed outbox rows to the broker: claims a batch in order, publishes it, and marks it
 * sent in the same transaction. Delivery is at least once: a crash after publishing and before the
 * commit publishes the batch again, which consumers absorb by event id. Failures back off
 * exponentially and are retried forever; a row is never dropped.
 */
export class OutboxRelay<Tx extends SqlClient> {
  readonly #opts: Required<Omit<OutboxRelayOptions<Tx>, "afterPublish">> & Pick<OutboxRelayOptions<Tx>, "afterPublish">;
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  /** Ends the pause at once (stop). */
  #endPause: (() => void) | undefined;
  /** A wake-up that arrived while a batch was in flight: poll again (after the linger) before pausing. */
  #pending = false;

  constructor(opts: OutboxRelayOptions<Tx>) {
    this.#opts = { batchSize: 100, idleMs: 100, maxBackoffMs: 5_000, lingerMs: 0, ...opts };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Ends the current pause at once: committed rows are waiting (a notification). */
  wake(): void {
    if (this.#wake) this.#wake();
    else this.#pending = true;
  }

  /** Finishes the batch in flight, then stops. */
  async stop(): Promise<void> {
    this.#running = false;
    this.#endPause?.();
    await this.#loop;
  }

  /** Publishes one batch; returns how many rows it sent (0 when empty or another relay holds the lock). */
  async relayOnce(): Promise<number> {
    let claimed: PublishedRecord[] = [];
    try {
      return await this.#opts.runInTransaction(async (tx) => {
        const rows = await tx.$queryRawUnsafe<(PublishedRecord & { seq: bigint })[]>(CLAIM_AND_MARK, this.#opts.batchSize);
        if (rows.length === 0) return 0;
        claimed = rows.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
        await this.#opts.publisher.publish(claimed);
        await this.#opts.afterPublish?.(claimed);
        return claimed.length;
      });
    } catch (error) {
      if (claimed.length > 0) {
        const ids = claimed.map((r) => r.eventId);
        await this.#opts.runInTransaction(async (tx) => tx.$executeRawUnsafe(COUNT_FAILURE, ids)).catch(() => {});
      }
      throw error;
    }
  }

  async #run(): Promise<void> {
    let failures = 0;
    while (this.#running) {
      try {
        const sent = await this.relayOnce();
        failures = 0;
        if (sent === this.#opts.batchSize) continue; // more may be waiting: no pause
        await this.#pause(this.#opts.idleMs);
      } catch (err) {
        failures++;
        const backoff = Math.min(this.#opts.idleMs * 2 ** failures, this.#opts.maxBackoffMs);
        this.#opts.logger.warn({ err, failures, backoffMs: backoff }, "outbox relay failed, retrying");
        await this.#pause(backoff);
      }
    }
  }

  #pause(ms: number): Promise<void> {
    if (!this.#running) return Promise.resolve();
    const woken = this.#pending;
    this.#pending = false;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout;
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        this.#endPause = undefined;
        resolve();
      };
      // Woken: the rest of the pause is the linger; later wake-ups change nothing (the batch takes their rows).
      const linger = () => {
        this.#wake = () => {};
        clearTimeout(timer);
        timer = setTimeout(done, this.#opts.lingerMs);
      };
      this.#endPause = done;
      if (woken) {
        if (this.#opts.lingerMs === 0) return done();
        return linger();
      }
      timer = setTimeout(done, ms);
      this.#wake = this.#opts.lingerMs === 0 ? done : linger;
    });
  }
}
