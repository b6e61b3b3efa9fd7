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

  /** Resolves when an offer for the driver may have been made, or after `ms`, or when `signal` aborts. */
  wait(driverId: string, ms: number, signal?: AbortSignal): { readonly woken: Promise<void>; cancel(): void } {
    let done!: () => void;
    const woken = new Promise<void>((resolve) => (done = resolve));
    const timer = setTimeout(() => cancel(), ms);
    const waiters = this.#waiting.get(driverId) ?? new Set();
    this.#waiting.set(driverId, waiters);
    const cancel = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
      waiters.delete(cancel);
      if (waiters.size === 0 && this.#waiting.get(driverId) === waiters) this.#waiting.delete(driverId);
      done();
    };
    waiters.add(cancel);
    signal?.addEventListener("abort", cancel, { once: true });
    return { woken, cancel };
  }

  /** An offer for this driver committed (or, without a driver, perhaps for anyone). */
  wake(driverId: string | undefined): void {
    const targets = driverId === undefined ? [...this.#waiting.values()].flatMap((set) => [...set]) : [...(this.#waiting.get(driverId) ?? [])];
    for (const cancel of targets) cancel();
  }

  /** How many calls wait now (a gauge, and tests). */
  get size(): number {
    let count = 0;
    for (const set of this.#waiting.values()) count += set.size;
    return count;
  }
}
