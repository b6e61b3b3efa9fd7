import type { Consumer } from "kafkajs";

type Offset = { topic: string; partition: number; offset: string };

/**
 * A consumer's offsets, committed together a moment after the first of them is ready rather than
 * one broker round trip per event: an event is applied exactly once by its claim in the service's
 * database, not by its offset, so an offset committed late (or lost with the process) only means
 * redeliveries that change nothing. Commits run one after another, so a later offset never lands
 * before an earlier one. What is still waiting when the group rebalances is dropped (the broker
 * checks a commit's generation, not who owns its partitions), so a late commit cannot move a new
 * owner back.
 */
export class DeferredCommits {
  readonly #pending = new Map<string, Offset>();
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly consumer: Pick<Consumer, "commitOffsets">,
    /** How long the first ready offset waits for others to join its commit. */
    private readonly delayMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** `offset`: the next offset to read (the last applied one plus one). */
  add(topic: string, partition: number, offset: string): void {
    this.#pending.set(`${partition}:${topic}`, { topic, partition, offset });
    this.#timer ??= setTimeout(() => void this.flush(), this.delayMs);
  }

  /**
   * Forgets what is not committed yet (a rebalance, a crash): those partitions may be another
   * consumer's by the time a commit went, and their events coming again changes nothing.
   */
  discard(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
  }

  /** Commits what is ready now (a stop, a test); resolves when every commit so far has ended. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const offsets = [...this.#pending.values()];
    this.#pending.clear();
    if (offsets.length > 0) this.#chain = this.#chain.then(() => this.consumer.commitOffsets(offsets)).catch(this.onError);
    return this.#chain;
  }
}
