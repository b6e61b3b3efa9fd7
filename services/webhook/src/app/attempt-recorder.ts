import type { Logger } from "@tawsil/logging";
import type { Clock, CompletedAttempt, DeliveryQueue } from "./ports";

const RETRY_PAUSE_MS = 1_000;
const MAX_TRIES = 5;

/**
 * Records finished attempts without holding any attempt for another: an attempt that finishes while
 * a write is under way joins the next one, so writes batch themselves under load and cost one
 * statement each when quiet. A failed write is tried again while the claims' leases last (an
 * attempt recorded late is still recorded once: the claim token decides); past that, another
 * replica makes the attempt again under the same webhook-id.
 */
export class AttemptRecorder {
  #pending: { readonly done: CompletedAttempt; readonly settle: (recorded: boolean) => void }[] = [];
  #writing: Promise<void> | undefined;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Resolves once written (true), or given up on (false). */
  record(done: CompletedAttempt): Promise<boolean> {
    return new Promise((settle) => {
      this.#pending.push({ done, settle });
      this.#kick();
    });
  }

  /** Everything recorded so far is written or given up on. */
  async idle(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  #kick(): void {
    if (this.#writing) return;
    this.#writing = this.#write().finally(() => {
      this.#writing = undefined;
      if (this.#pending.length > 0) this.#kick();
    });
  }

  async #write(): Promise<void> {
    let batch = this.#pending.splice(0);
    for (let tries = 1; batch.length > 0; tries++) {
      try {
        await this.queue.complete(batch.map((b) => b.done));
        for (const b of batch) b.settle(true);
        return;
      } catch (err) {
        const now = this.clock.now().getTime();
        const live = tries < MAX_TRIES ? batch.filter((b) => b.done.claim.leaseUntil.getTime() > now) : [];
        this.logger.error({ err, deliveries: batch.length, givenUp: batch.length - live.length }, "webhook attempts could not be recorded");
        for (const b of batch) if (!live.includes(b)) b.settle(false);
        batch = live;
        if (batch.length > 0) await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
      }
    }
  }
}
