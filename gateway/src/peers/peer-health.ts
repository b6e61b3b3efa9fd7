import type { Logger } from "@tawsil/logging";
import type { ServiceName } from "../config";

/** `unknown` until the first health answer: such a peer is tried, as it most likely is up. */
export type PeerStatus = "up" | "down" | "unknown";

/**
 * Health answers short of SERVING in a row that make a peer down. A single slow or failed check of
 * a busy peer is not an outage; a refused call is, and marks it down at once (`suspect`).
 */
const MISSES_TO_DOWN = 2;

/**
 * What this gateway knows of one service, learned from its health checks (health-watch.ts) and
 * from calls that could not reach it (fail-fast.ts). While it is down, calls to it are refused at
 * once with Unavailable instead of each waiting for a connection or a deadline, so only the routes
 * that need it fail, and fast.
 */
export class PeerHealth {
  #status: PeerStatus = "unknown";
  #misses = 0;
  /** Set by the health watch: look again now rather than at the next tick. */
  #recheck: (() => void) | undefined;

  constructor(
    readonly name: ServiceName,
    private readonly logger: Logger,
  ) {}

  get status(): PeerStatus {
    return this.#status;
  }

  get available(): boolean {
    return this.#status !== "down";
  }

  /** A health check's outcome: SERVING, or anything else (NOT_SERVING, no answer in time, refused). */
  observe(serving: boolean): void {
    if (serving) {
      this.#misses = 0;
      this.#set("up");
    } else if (++this.#misses >= MISSES_TO_DOWN) {
      this.#set("down");
    }
  }

  /**
   * A call found the peer unreachable (refused, reset, or it said it cannot serve): down from now,
   * until a health check, asked for at once, says otherwise. A peer that only blinked is back
   * within one round trip.
   */
  suspect(): void {
    if (this.#status === "down") return;
    this.#misses = MISSES_TO_DOWN;
    this.#set("down");
    this.#recheck?.();
  }

  onRecheck(recheck: () => void): void {
    this.#recheck = recheck;
  }

  #set(status: "up" | "down"): void {
    const before = this.#status;
    this.#status = status;
    if (status === "down" && before !== "down") this.logger.warn({ peer: this.name }, "peer down: calls to it fail at once (503) until it is back");
    if (status === "up" && before === "down") this.logger.info({ peer: this.name }, "peer back up");
  }
}
