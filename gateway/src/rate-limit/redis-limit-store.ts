import type { Logger } from "@tawsil/logging";
import { Redis } from "ioredis";
import { Counter, type Registry } from "prom-client";
import type { LockoutLimit } from "./limits";
import { MemoryLimitStore, type Chain, type LimitStore, type Verdict } from "./limit-store";
import { RECORD_FAILURE, TAKE_CHAIN } from "./redis-scripts";

/** Every key of the limits starts so: the Redis may be shared with nothing else, but says whose keys these are. */
const PREFIX = "tawsil:limits:";
/**
 * After a failed or late call, requests no longer wait on the store: a PING in the background,
 * at most this often, finds when it answers again. So a hanging Redis costs each replica one
 * deadline per outage, not one per request.
 */
const PROBE_INTERVAL_MS = 1000;
/** At most one warning per this interval, however many requests fall back. */
const WARN_INTERVAL_MS = 30_000;

interface LimitCommands {
  tawsilTakeChain(...args: string[]): Promise<number[]>;
  tawsilRecordFailure(...args: string[]): Promise<number>;
}

export interface RedisLimitStoreOptions {
  readonly url: string;
  /** Deadline of one call: past it, the request is limited by this replica's memory instead. */
  readonly timeoutMs: number;
  readonly logger: Logger;
  readonly registry: Registry;
}

/** The chain's script arguments that do not change between requests, worked out once per chain. */
function staticArgs(chain: Chain): string[] {
  return chain.flatMap((limit) => {
    switch (limit.kind) {
      case "bucket":
        return ["bucket", String(limit.capacity), String(limit.perSecond), ""];
      case "window":
        return ["window", String(limit.limit), String(limit.windowSeconds * 1000), ""];
      case "lockout":
        return ["lockout", "", "", ""];
    }
  });
}

const lockKey = (limit: LockoutLimit, key: string) => `${PREFIX}${limit.name}:lock:${key}`;
const failuresKey = (limit: LockoutLimit, key: string) => `${PREFIX}${limit.name}:failures:${key}`;

/**
 * The limits in a Redis the gateway replicas share, so each holds for the deployment
 * (decisions.md section 14): one script call per request, the same algorithms and answers as the
 * memory store's. Redis down or slow never fails or holds a request: past `timeoutMs` (or at once
 * while disconnected) the request is limited by this replica's memory, as a single gateway is,
 * `gateway_rate_limit_store_errors_total` counts it, and a warning is logged at most every 30 s.
 */
export class RedisLimitStore implements LimitStore {
  readonly #redis: Redis & LimitCommands;
  readonly #memory = new MemoryLimitStore();
  readonly #args = new WeakMap<Chain, string[]>();
  readonly #errors: Counter;
  readonly #logger: Logger;
  /** False from a failed call until a probe or a new connection says the store answers again. */
  #answering = true;
  #probing = false;
  #lastFailure = 0;
  #lastWarning = -Infinity;

  constructor(opts: RedisLimitStoreOptions) {
    this.#logger = opts.logger;
    this.#errors = new Counter({
      name: "gateway_rate_limit_store_errors_total",
      help: "Requests whose limits the shared store (Redis) did not answer in time, limited by this replica's memory instead.",
      registers: [opts.registry],
    });
    const redis = new Redis(opts.url, {
      commandTimeout: opts.timeoutMs,
      connectTimeout: 2000,
      // Never queue a command while disconnected, nor retry one: the fallback answers at once.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnects forever, at most every 2 s.
      retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
      // One write per event-loop turn for all the requests of that turn.
      enableAutoPipelining: true,
    });
    redis.defineCommand("tawsilTakeChain", { lua: TAKE_CHAIN });
    redis.defineCommand("tawsilRecordFailure", { numberOfKeys: 2, lua: RECORD_FAILURE });
    redis.on("error", (error: Error) => this.#warn(error));
    redis.on("ready", () => (this.#answering = true));
    this.#redis = redis as Redis & LimitCommands;
  }

  async take(chain: Chain, keys: readonly string[], now?: number): Promise<Verdict> {
    if (!this.#usable()) return this.#fallback(chain, keys, now);
    try {
      const answer = await this.#redis.tawsilTakeChain(...this.#scriptArgs(chain, keys, now));
      const [refused, allowed, remaining, retryAfterSeconds, resetSeconds, failures] = answer as [number, number, number, number, number, number];
      return {
        refusedBy: refused === 0 ? undefined : chain[refused - 1],
        decision: { allowed: allowed === 1, remaining, retryAfterSeconds, resetSeconds },
        mayHaveFailures: failures > 0,
      };
    } catch (error) {
      this.#failed(error);
      return this.#memory.takeNow(chain, keys, now);
    }
  }

  async recordFailure(limit: LockoutLimit, key: string, now?: number): Promise<void> {
    if (this.#usable()) {
      try {
        const args = [lockKey(limit, key), failuresKey(limit, key), now === undefined ? "" : String(now), String(limit.maxFailures), String(limit.windowSeconds * 1000), String(limit.lockSeconds * 1000)];
        await this.#redis.tawsilRecordFailure(...args);
        return;
      } catch (error) {
        this.#failed(error);
      }
    } else {
      this.#errors.inc();
    }
    limit.memory.recordFailure(key, now);
  }

  async recordSuccess(limit: LockoutLimit, key: string): Promise<void> {
    // Failures recorded here while the store was away are forgotten too.
    limit.memory.recordSuccess(key);
    if (!this.#usable()) return;
    try {
      await this.#redis.del(failuresKey(limit, key));
    } catch (error) {
      this.#failed(error);
    }
  }

  async close(): Promise<void> {
    this.#redis.disconnect();
  }

  #scriptArgs(chain: Chain, keys: readonly string[], now: number | undefined): string[] {
    let args = this.#args.get(chain);
    if (!args) {
      args = staticArgs(chain);
      this.#args.set(chain, args);
    }
    const redisKeys: string[] = [];
    for (let i = 0; i < chain.length; i++) {
      const limit = chain[i]!;
      if (limit.kind === "lockout") redisKeys.push(lockKey(limit, keys[i]!), failuresKey(limit, keys[i]!));
      else redisKeys.push(`${PREFIX}${limit.name}:${keys[i]!}`);
    }
    return [String(redisKeys.length), ...redisKeys, now === undefined ? "" : String(now), ...args];
  }

  /** Connected, and answering as far as the last call or probe knows; else a probe may start. */
  #usable(): boolean {
    if (this.#redis.status !== "ready") return false;
    if (!this.#answering) this.#probe();
    return this.#answering;
  }

  #probe(): void {
    if (this.#probing || Date.now() - this.#lastFailure < PROBE_INTERVAL_MS) return;
    this.#probing = true;
    this.#redis.ping().then(
      () => {
        this.#answering = true;
        this.#probing = false;
      },
      () => {
        this.#lastFailure = Date.now();
        this.#probing = false;
      },
    );
  }

  #fallback(chain: Chain, keys: readonly string[], now: number | undefined): Verdict {
    this.#errors.inc();
    return this.#memory.takeNow(chain, keys, now);
  }

  /** A call that failed or timed out: counted, and no request waits on the store until a probe says it answers. */
  #failed(error: unknown): void {
    this.#errors.inc();
    this.#answering = false;
    this.#lastFailure = Date.now();
    this.#warn(error);
  }

  #warn(error: unknown): void {
    const at = Date.now();
    if (at - this.#lastWarning < WARN_INTERVAL_MS) return;
    this.#lastWarning = at;
    this.#logger.warn({ err: error }, "rate-limit store (Redis) unavailable: each replica limits from its own memory until it is back");
  }
}
