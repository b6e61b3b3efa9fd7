export interface ReadThroughCacheOptions<V> {
  /**
   * Reads the value from its owner; `undefined` (nothing there) is returned but not kept. It gets
   * no caller's signal: one load serves every waiter, so one caller giving up must not fail the
   * others (the peer client's own deadline bounds it).
   */
  readonly load: (key: string) => Promise<V | undefined>;
  /**
   * Longest an entry is trusted without an invalidation: the safety net for an event lost while
   * the broker was unreachable. Invalidation by events is what keeps entries fresh.
   */
  readonly maxAgeMs: number;
  /** Entries kept at most; the oldest is dropped first. */
  readonly maxEntries?: number;
  readonly now?: () => number;
}

interface Entry<V> {
  readonly value: V;
  readonly loadedAt: number;
}

/**
 * Another service's read-mostly data, kept in this process: a miss reads the owner once however
 * many requests wait for it (single flight), and the owner's events drop entries. A load that was
 * under way when its key was invalidated answers its waiters but is not kept, so a change that
 * committed during the read is never cached as if it had not happened.
 */
export class ReadThroughCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #loading = new Map<string, { promise: Promise<V | undefined>; generation: number }>();
  readonly #now: () => number;
  #generation = 0;

  constructor(private readonly opts: ReadThroughCacheOptions<V>) {
    this.#now = opts.now ?? Date.now;
  }

  get(key: string): Promise<V | undefined> {
    const entry = this.#entries.get(key);
    if (entry && this.#now() - entry.loadedAt < this.opts.maxAgeMs) return Promise.resolve(entry.value);
    const pending = this.#loading.get(key);
    if (pending) return pending.promise;
    return this.#load(key);
  }

  /** Drops one key, and makes any load of it in flight unkeepable. */
  invalidate(key: string): void {
    this.#entries.delete(key);
    if (this.#loading.delete(key)) this.#generation++;
  }

  /** Drops everything (after events may have been missed). */
  clear(): void {
    this.#entries.clear();
    this.#loading.clear();
    this.#generation++;
  }

  get size(): number {
    return this.#entries.size;
  }

  #load(key: string): Promise<V | undefined> {
    const generation = this.#generation;
    const promise = this.opts.load(key).then(
      (value) => {
        const current = this.#loading.get(key);
        if (current?.promise === promise) this.#loading.delete(key);
        if (value !== undefined && this.#generation === generation) this.#keep(key, value);
        return value;
      },
      (error: unknown) => {
        if (this.#loading.get(key)?.promise === promise) this.#loading.delete(key);
        throw error;
      },
    );
    this.#loading.set(key, { promise, generation });
    return promise;
  }

  #keep(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, loadedAt: this.#now() });
    const max = this.opts.maxEntries ?? 10_000;
    if (this.#entries.size > max) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }
}
