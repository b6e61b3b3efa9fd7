import type { Logger } from "@tawsil/logging";
import type { ServiceName } from "../config";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "../problem/from-connect";

/** `unknown` until the first SERVING answer: such a peer is tried, as it most likely is up. */
export type PeerStatus = "up" | "down" | "unknown";

/**
 * A health check's outcome. `no-answer` (its deadline passed) counts for nothing: a peer that is
 * only slow (a busy machine, a long pause) is not down, and its calls keep their deadline.
 */
export type HealthAnswer = "serving" | "not-serving" | "unreachable" | "no-answer";

/**
 * How long a peer found down stays refused without a new sign: the Retry-After the refusals carry.
 * Every failed check renews it (checks come each second), so a peer that stays down stays refused;
 * one wrongly suspected is tried again after it even if no check could answer meanwhile.
 */
const HOLD_MS = UNAVAILABLE_RETRY_AFTER_SECONDS * 1000;
/** NOT_SERVING answers in a row that make a peer down (draining, its database away), as a kubelet's failureThreshold would. */
const NOT_SERVING_TO_DOWN = 3;

/**
 * What this gateway knows of one service: the per-peer circuit of its client (fail-fast.ts), fed
 * by its health checks (health-watch.ts) and by calls that could not reach it. While it is down,
 * calls to it are refused at once with Unavailable (503 with Retry-After at the edge) instead of
 * each waiting for a connection or a deadline, so only the routes that need it fail, and fast.
 */
export class PeerHealth {
  #downUntil = 0;
  #notServing = 0;
  #seenServing = false;
  /** Set by the health watch: look again now rather than at the next tick. */
  #recheck: (() => void) | undefined;

  constructor(
    readonly name: ServiceName,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  get available(): boolean {
    return this.now() >= this.#downUntil;
  }

  get status(): PeerStatus {
    if (!this.available) return "down";
    return this.#seenServing ? "up" : "unknown";
  }

  observe(answer: HealthAnswer): void {
    if (answer === "serving") {
      if (!this.available) this.logger.info({ peer: this.name }, "peer back up");
      this.#notServing = 0;
      this.#seenServing = true;
      this.#downUntil = 0;
    } else if (answer === "unreachable" || (answer === "not-serving" && ++this.#notServing >= NOT_SERVING_TO_DOWN)) {
      this.#hold();
    }
  }

  /**
   * A call could not reach the peer (refused, reset, or it answered Unavailable of its own): refused
   * from now, and a health check asked for at once, so a peer that only blinked is back within a
   * round trip.
   */
  suspect(): void {
    const wasAvailable = this.available;
    this.#hold();
    if (wasAvailable) this.#recheck?.();
  }

  onRecheck(recheck: () => void): void {
    this.#recheck = recheck;
  }

  #hold(): void {
    if (this.available) this.logger.warn({ peer: this.name }, "peer down: calls to it fail at once (503) until it is back");
    this.#downUntil = this.now() + HOLD_MS;
  }
}
