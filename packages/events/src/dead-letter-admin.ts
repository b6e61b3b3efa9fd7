import { claimEvent } from "./claims";
import { lockKey } from "./dead-letters";
import type { ConsumedEvent, EventHandler } from "./idempotent-consumer";
import type { RunInTransaction, SqlClient } from "./sql";

/** One parked event as an operator sees it. */
export interface ParkedEvent {
  readonly id: string;
  readonly consumerGroup: string;
  readonly event: ConsumedEvent;
  readonly error: string;
  readonly attempts: number;
  readonly parkedAt: Date;
  readonly resolvedAt: Date | null;
  /** REPLAYED (applied by a replay), ALREADY_APPLIED (a replay found it applied before), DISCARDED; null while parked. */
  readonly resolution: string | null;
}

/** What a replay did: the events it applied in order, and the one that failed again (it stays parked, the rest behind it). */
export interface ReplayResult {
  readonly applied: readonly ParkedEvent[];
  readonly failed: { readonly id: string; readonly error: string } | null;
}

/** The parked event is not there, already resolved, or not the first of its key. */
export class ParkedEventError extends Error {
  override readonly name = "ParkedEventError";
  constructor(
    readonly reason: "NOT_FOUND" | "RESOLVED" | "NOT_FIRST",
    message: string,
  ) {
    super(message);
  }
}

interface Row {
  id: string;
  consumer_group: string;
  event_id: string;
  topic: string;
  partition: number;
  offset: string;
  key: string;
  type: string;
  payload: Uint8Array;
  error: string;
  attempts: number;
  parked_at: Date;
  resolved_at: Date | null;
  resolution: string | null;
}

const COLUMNS = `id::text AS id, consumer_group, event_id::text AS event_id, topic, partition, "offset"::text AS "offset", key, type, payload, error, attempts, parked_at, resolved_at, resolution`;

function parkedOf(row: Row): ParkedEvent {
  return {
    id: row.id,
    consumerGroup: row.consumer_group,
    event: { eventId: row.event_id, type: row.type, key: row.key, payload: new Uint8Array(row.payload), topic: row.topic, partition: row.partition, offset: row.offset },
    error: row.error,
    attempts: row.attempts,
    parkedAt: row.parked_at,
    resolvedAt: row.resolved_at,
    resolution: row.resolution,
  };
}

/**
 * The operators' side of a consumer group's dead letters: list, show, replay (the parked event, then
 * every event parked behind it, in order, each through the consumer's own handler and processed-event
 * claim, so an event is applied once however often it is replayed) and discard. Runs in the service
 * process, which owns the handler and the database.
 */
export class DeadLetterAdmin<Tx extends SqlClient> {
  constructor(
    private readonly opts: {
      readonly groupId: string;
      readonly runInTransaction: RunInTransaction<Tx>;
      readonly handler: EventHandler<Tx>;
      readonly clock?: () => Date;
    },
  ) {}

  /** Parked events, oldest first; resolved ones too with `all`. */
  async list(opts: { all?: boolean; limit?: number } = {}): Promise<ParkedEvent[]> {
    const rows = await this.opts.runInTransaction(async (tx) =>
      tx.$queryRawUnsafe<Row[]>(
        `SELECT ${COLUMNS} FROM parked_event WHERE consumer_group = $1 AND ($2::boolean OR resolved_at IS NULL) ORDER BY id LIMIT $3`,
        this.opts.groupId, opts.all === true, opts.limit ?? 100,
      ),
    );
    return rows.map(parkedOf);
  }

  async show(id: string): Promise<ParkedEvent> {
    return this.opts.runInTransaction((tx) => this.#find(tx, id));
  }

  /** Marks a parked event discarded: it is never applied; the next one of its key becomes the first. */
  async discard(id: string): Promise<ParkedEvent> {
    return this.opts.runInTransaction(async (tx) => {
      const parked = await this.#find(tx, id);
      if (parked.resolvedAt) throw new ParkedEventError("RESOLVED", `parked event ${id} was already ${parked.resolution}`);
      await lockKey(tx, this.opts.groupId, parked.event.key);
      await tx.$executeRawUnsafe(`UPDATE parked_event SET resolved_at = $2, resolution = 'DISCARDED' WHERE id = $1::bigint`, id, this.#now());
      return this.#find(tx, id);
    });
  }

  /**
   * Applies the parked event `id` (the first unresolved one of its key), then those parked behind
   * it, one transaction each, under the key's lock (the consumer takes it before parking another
   * behind them, so none is left behind unnoticed). Stops at the first that fails again.
   */
  async replay(id: string): Promise<ReplayResult> {
    const first = await this.show(id);
    if (first.resolvedAt) throw new ParkedEventError("RESOLVED", `parked event ${id} was already ${first.resolution}`);
    const applied: ParkedEvent[] = [];
    for (;;) {
      let next: ParkedEvent | undefined;
      try {
        next = await this.opts.runInTransaction(async (tx) => {
          await lockKey(tx, this.opts.groupId, first.event.key);
          const [row] = await tx.$queryRawUnsafe<Row[]>(
            `SELECT ${COLUMNS} FROM parked_event WHERE consumer_group = $1 AND key = $2 AND resolved_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE`,
            this.opts.groupId, first.event.key,
          );
          if (!row) return undefined;
          if (applied.length === 0 && row.id !== id) throw new ParkedEventError("NOT_FIRST", `parked event ${id} waits behind parked event ${row.id} of the same key: replay that one`);
          const parked = parkedOf(row);
          // The key's own parked row is what it waits behind: the replay claims without that look.
          const claimed = (await claimEvent(tx, this.opts.groupId, parked.event, false)) === "claimed";
          if (claimed) await this.opts.handler(tx, parked.event);
          await tx.$executeRawUnsafe(`UPDATE parked_event SET resolved_at = $2, resolution = $3 WHERE id = $1::bigint`, row.id, this.#now(), claimed ? "REPLAYED" : "ALREADY_APPLIED");
          return { ...parked, resolvedAt: this.#now(), resolution: claimed ? "REPLAYED" : "ALREADY_APPLIED" };
        });
      } catch (err) {
        if (err instanceof ParkedEventError) throw err;
        const failedId = await this.#firstOfKey(first.event.key);
        const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
        if (failedId) await this.opts.runInTransaction(async (tx) => tx.$executeRawUnsafe(`UPDATE parked_event SET error = $2, attempts = attempts + 1 WHERE id = $1::bigint`, failedId, error.slice(0, 2000)));
        return { applied, failed: { id: failedId ?? id, error } };
      }
      if (!next) return { applied, failed: null };
      applied.push(next);
    }
  }

  async #firstOfKey(key: string): Promise<string | undefined> {
    const rows = await this.opts.runInTransaction(async (tx) =>
      tx.$queryRawUnsafe<{ id: string }[]>(`SELECT id::text AS id FROM parked_event WHERE consumer_group = $1 AND key = $2 AND resolved_at IS NULL ORDER BY id LIMIT 1`, this.opts.groupId, key),
    );
    return rows[0]?.id;
  }

  async #find(tx: Tx, id: string): Promise<ParkedEvent> {
    if (!/^\d{1,18}$/.test(id)) throw new ParkedEventError("NOT_FOUND", `no parked event ${id}`);
    const [row] = await tx.$queryRawUnsafe<Row[]>(`SELECT ${COLUMNS} FROM parked_event WHERE id = $1::bigint AND consumer_group = $2`, id, this.opts.groupId);
    if (!row) throw new ParkedEventError("NOT_FOUND", `no parked event ${id}`);
    return parkedOf(row);
  }

  #now(): Date {
    return this.opts.clock?.() ?? new Date();
  }
}
