/**
 * One timer armed at the earliest instant it was asked for: an earlier instant re-arms it, a later
 * one is left for whoever fires it to look up (the next expiry, the next held job). Work that
 * happened meanwhile (an offer accepted, a held job cancelled) makes it fire for nothing, once.
 */
export class EarliestTimer {
  #timer: NodeJS.Timeout | undefined;
  #at: number | undefined;

  constructor(
    private readonly fire: () => void,
    private readonly now: () => Date,
  ) {}

  arm(at: Date): void {
    const atMs = at.getTime();
    if (this.#at !== undefined && this.#at <= atMs) return;
    clearTimeout(this.#timer);
    this.#at = atMs;
    // setTimeout takes at most 2^31-1 ms (about 24.8 days); a held job waits at most 7 days.
    this.#timer = setTimeout(() => {
      this.#at = undefined;
      this.fire();
    }, Math.max(0, atMs - this.now().getTime()));
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#at = undefined;
  }
}
