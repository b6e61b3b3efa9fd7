/** The longest a driver's app may wait for an offer in one call (decisions.md section 17's long poll). */
export const MAX_OFFER_WAIT_MS = 20_000;

/**
 * Drivers' long polls for offers waiting on this replica. An offer's notification (sent on commit by
 * whichever replica made it, LISTENed to by every replica) wakes the driver's waiters here; a
 * notification without a driver (the listener reconnected, and may have missed some) wakes all of
 * them, so each asks the database again. A waiter costs a timer and a closure, and no query runs
 * while it waits.
 */
export class OfferWaiters {
  readonly #waiting = new Map<string, Set<() => void>>();

  /**
   * `woken` resolves true when an offer for the driver may have been made (a notification), false
   * after `ms`, when `signal` aborts or on `cancel()`: then nothing new is known, and the caller
   * need not ask the database again.
   */
  wait(driverId: string, ms: number, signal?: AbortSignal): { readonly woken: Promise<boolean>; cancel(): void } {
    let done!: (notified: boolean) => void;
    const woken = new Promise<boolean>((resolve) => (done = resolve));
    const timer = setTimeout(() => end(false), ms);
    const waiters = this.#waiting.get(driverId) ?? new Set();
    this.#waiting.set(driverId, waiters);
    const end = (notified: boolean): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
      waiters.delete(notify);
      if (waiters.size === 0 && this.#waiting.get(driverId) === waiters) this.#waiting.delete(driverId);
      done(notified);
    };
    const notify = () => end(true);
    const cancel = () => end(false);
    waiters.add(notify);
    signal?.addEventListener("abort", cancel, { once: true });
    return { woken, cancel };
  }

  /** An offer for this driver committed (or, without a driver, perhaps for anyone). */
  wake(driverId: string | undefined): void {
    const targets = driverId === undefined ? [...this.#waiting.values()].flatMap((set) => [...set]) : [...(this.#waiting.get(driverId) ?? [])];
    for (const notify of targets) notify();
  }

  /** How many calls wait now (a gauge, and tests). */
  get size(): number {
    let count = 0;
    for (const set of this.#waiting.values()) count += set.size;
    return count;
  }
}
