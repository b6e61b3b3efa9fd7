import type { Limit, LockoutLimit } from "./limits";
import type { Decision } from "./token-bucket";

/** What a request asks of the limits it passes, in order; built once, at start. */
export type Chain = readonly Limit[];

/** The answer to one request's chain. */
export interface Verdict {
  /** The limit that refused the request; undefined when every one let it through. */
  readonly refusedBy: Limit | undefined;
  /** The refusing limit's decision, else the last limit's. */
  readonly decision: Decision;
  /** False only when the store knows the chain's lockout key has no failure to forget (recordSuccess would do nothing). */
  readonly mayHaveFailures: boolean;
}

/**
 * Where the limits' state lives: this replica's memory, or a store the replicas share (Redis), so
 * that a limit holds for the deployment (decisions.md section 14). One interface, so the routes do
 * not know which: each call is at most one round trip to the store.
 */
export interface LimitStore {
  /**
   * Counts one request against each limit of `chain` in turn, `keys[i]` for `chain[i]`, stopping at
   * the first that refuses (the limits before it have counted the request, as they always have).
   */
  take(chain: Chain, keys: readonly string[]): Promise<Verdict>;
  /** One failed authentication of `key`; enough of them lock it. */
  recordFailure(limit: LockoutLimit, key: string): Promise<void>;
  /** A successful authentication of `key`: its failures are forgotten. */
  recordSuccess(limit: LockoutLimit, key: string): Promise<void>;
  close(): Promise<void>;
}

const ALLOWED_BY_NONE: Decision = { allowed: true, remaining: 0, retryAfterSeconds: 0, resetSeconds: 0 };

/**
 * The limits in this replica's memory (the classes beside this file, unchanged): with N replicas
 * each keeps its own count, so a client gets N times each limit. The store of `make dev` and of a
 * single gateway, and the fallback of the shared store when it does not answer.
 */
export class MemoryLimitStore implements LimitStore {
  /** Synchronous underneath: the shared store's fallback calls this without a promise. */
  takeNow(chain: Chain, keys: readonly string[], now = Date.now()): Verdict {
    let decision = ALLOWED_BY_NONE;
    for (let i = 0; i < chain.length; i++) {
      const limit = chain[i]!;
      const key = keys[i]!;
      if (limit.kind === "lockout") {
        const lockedFor = limit.memory.lockedFor(key, now);
        decision = { allowed: lockedFor === 0, remaining: 0, retryAfterSeconds: lockedFor, resetSeconds: lockedFor };
      } else {
        decision = limit.memory.take(key, now);
      }
      if (!decision.allowed) return { refusedBy: limit, decision, mayHaveFailures: true };
    }
    return { refusedBy: undefined, decision, mayHaveFailures: true };
  }

  async take(chain: Chain, keys: readonly string[]): Promise<Verdict> {
    return this.takeNow(chain, keys);
  }

  async recordFailure(limit: LockoutLimit, key: string): Promise<void> {
    limit.memory.recordFailure(key);
  }

  async recordSuccess(limit: LockoutLimit, key: string): Promise<void> {
    limit.memory.recordSuccess(key);
  }

  async close(): Promise<void> {}
}
