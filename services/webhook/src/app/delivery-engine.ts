import { randomUUID } from "node:crypto";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Logger } from "@tawsil/logging";
import { attemptDelivery, type AttemptDeps } from "./attempt-delivery";
import { AttemptRecorder } from "./attempt-recorder";
import type { AttemptStage, ClaimedDelivery, DeliveryObserver, DeliveryQueue } from "./ports";

export interface DeliveryEngineOptions extends AttemptDeps {
  readonly queue: DeliveryQueue;
  readonly observer: DeliveryObserver;
  readonly logger: Logger;
  /** Sends in flight on this replica. */
  readonly concurrency: number;
  /** Sends in flight per endpoint on this replica (decisions.md section 11: a per-endpoint cap). */
  readonly perEndpoint: number;
  /** How long a claim is this replica's; well beyond the attempt timeout and the DNS deadline. */
  readonly leaseMs: number;
  /**
   * First sleep when nothing is due, doubling with each look in a row that finds nothing, up to
   * QUIET_GROWTH times it: bounds how late another replica's new event is noticed (a resume wakes
   * every replica: server.ts), and a failed claim is retried after it.
   */
  readonly idleMs: number;
  /**
   * This replica's stable name (WEBHOOK_REPLICA_ID), kept on its claims: started again under it,
   * the engine first takes back what its previous life held when it died (SIGKILL, OOM) rather
   * than leave those deliveries to their lease. Unset, each start claims under a fresh name and a
   * dead replica's claims wait for their lease.
   */
  readonly replicaId?: string;
}

const tracer = () => trace.getTracer("@tawsil/webhook");

/**
 * How many times idleMs a quiet engine's sleep grows to (1 s becomes 32 s): an idle replica looked
 * at the queue twice a second (the claim, then the next due time) for as long as it ran. Work
 * queued or freed here, a resume on any replica, or a look that finds work or fails, starts the
 * sleeps from idleMs again; a retry's known due time is slept to, however long the sleeps grew.
 */
const QUIET_GROWTH = 32;

/**
 * One replica's sender: a pool of `concurrency` sends, each on its own; a slot frees once its
 * receiver answered (recording the outcome holds none; the delivery stays claimed until it is).
 * Whenever slots are free it claims due deliveries (SKIP LOCKED, so replicas never share a row) for them, at most
 * `perEndpoint` in flight per endpoint, so a receiver that hangs holds its own slots and no one
 * else's, and nothing waits for the slowest send of a batch. When nothing can be claimed it sleeps
 * until the next delivery is due, at most idleMs, doubled for each look in a row that found nothing
 * (QUIET_GROWTH); a wake() (an event queued here, a slot freed that a claim lacked, a resume) cuts
 * the sleep short: no work while nothing is due, no scan that grows with the queue.
 */
export class DeliveryEngine {
  readonly name = "delivery-engine";
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #woken = false;
  #inFlight = 0;
  /** Sends in flight by endpoint id. */
  readonly #busy = new Map<string, number>();
  readonly #attempts = new Set<Promise<void>>();
  readonly #recorder: AttemptRecorder;
  readonly #holder: string;
  /** Claims of this replica's previous life taken back: once, before its first claim. */
  #recovered: boolean;
  /** The deliveries of the sends in flight, until each is recorded or given up on. */
  readonly #inFlightIds = new Set<string>();
  /** Sent, their outcome not recorded (the database was away): left to their lease, by lease end. */
  readonly #unrecorded = new Map<string, number>();
  /** The last claim failed: it may have committed rows this replica never received. */
  #claimFailed = false;
  /**
   * Endpoints that reached their cap, so likely with more due: each of their freed slots is
   * refilled from their own rows (#refill) until a refill finds fewer than it could take.
   */
  readonly #backlogged = new Set<string>();
  /** Looks in a row that found nothing to send and no reason to look again soon. */
  #quietLooks = 0;
  /** The claim under way, if any: claims run one after another (#claimWith). */
  #claiming: Promise<void> = Promise.resolve();

  constructor(private readonly opts: DeliveryEngineOptions) {
    this.#recorder = new AttemptRecorder(opts.queue, opts.clock, opts.logger);
    this.#holder = opts.replicaId ?? `start-${randomUUID()}`;
    this.#recovered = opts.replicaId === undefined;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Something may be due now: claim without waiting for the timer. */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  /** Stops claiming, then lets the attempts in flight finish and be recorded (SIGTERM drains). */
  async close(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loop;
    await this.#claiming;
    await Promise.all(this.#attempts);
    await this.#recorder.idle();
  }

  /** Claims what the free slots allow and waits for those attempts to be recorded; returns how many. Tests drive the engine with it. */
  async runOnce(): Promise<number> {
    const started = await this.#claim();
    await Promise.all(started);
    return started.length;
  }

  /** Claims for the free slots and starts each attempt; the promises end when each is recorded. */
  #claim(): Promise<Promise<void>[]> {
    return this.#claimWith(() => {
      const limit = this.opts.concurrency - this.#inFlight;
      if (limit <= 0) return [];
      return this.opts.queue.claimDue(this.opts.clock.now(), { limit, leaseMs: this.opts.leaseMs, perEndpoint: this.opts.perEndpoint, busy: this.#busy, holder: this.#holder });
    });
  }

  /**
   * A slot of an endpoint that reached its cap freed: refill it from that endpoint's own due rows.
   * Its backlog is likely still due, and the general claim would read every endpoint's due rows by
   * time for it, then look for the next due one past the capped endpoint's whole backlog, once per
   * delivery. When the endpoint has no more due (or the pool is full), the general loop is woken
   * as before: other endpoints' rows and this one's retries are its business.
   */
  async #refill(endpointId: string): Promise<void> {
    try {
      await this.#claimWith(() => {
        const limit = Math.min(this.opts.perEndpoint - (this.#busy.get(endpointId) ?? 0), this.opts.concurrency - this.#inFlight);
        if (!this.#running || limit <= 0) return [];
        return this.opts.queue.claimDueOf(endpointId, this.opts.clock.now(), { limit, leaseMs: this.opts.leaseMs, holder: this.#holder }).then((claims) => {
          if (claims.length < limit) {
            this.#backlogged.delete(endpointId);
            this.wake();
          }
          return claims;
        });
      });
    } catch (err) {
      this.opts.logger.error({ err }, "refilling an endpoint's webhook deliveries failed; the next claim retries");
      this.wake();
    }
  }

  /**
   * Claims one at a time, whichever asks (the loop, a refill), so each sees the slots the last one
   * took; first what a previous life or a failed claim left behind.
   */
  #claimWith(fetch: () => ClaimedDelivery[] | Promise<ClaimedDelivery[]>): Promise<Promise<void>[]> {
    const run = this.#claiming.then(async () => {
      if (!this.#recovered) await this.#recoverClaims();
      if (this.#claimFailed) await this.#releaseUnknownClaims();
      let claims: ClaimedDelivery[];
      try {
        claims = await fetch();
      } catch (err) {
        this.#claimFailed = true;
        throw err;
      }
      return claims.map((claim) => this.#start(claim));
    });
    this.#claiming = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * After a failed claim, before the next: what it may have taken unseen goes back at once rather
   * than wait out its lease (a PostgreSQL restart held such deliveries for the whole lease).
   */
  async #releaseUnknownClaims(): Promise<void> {
    const now = this.opts.clock.now();
    for (const [id, leaseEnd] of this.#unrecorded) if (leaseEnd <= now.getTime()) this.#unrecorded.delete(id);
    const given = await this.opts.queue.releaseUnknownClaims(this.#holder, now, [...this.#inFlightIds, ...this.#unrecorded.keys()]);
    this.#claimFailed = false;
    if (given > 0) this.opts.logger.warn({ deliveries: given }, "gave back deliveries a failed claim took without this replica learning of them; due now");
  }

  async #recoverClaims(): Promise<void> {
    const taken = await this.opts.queue.recoverClaims(this.#holder, this.opts.clock.now());
    this.#recovered = true;
    if (taken > 0) this.opts.logger.warn({ replicaId: this.#holder, deliveries: taken }, "took back the deliveries this replica held when it stopped without draining; due now");
  }

  #start(claim: ClaimedDelivery): Promise<void> {
    this.#inFlight++;
    this.#inFlightIds.add(claim.id);
    const busy = (this.#busy.get(claim.endpointId) ?? 0) + 1;
    this.#busy.set(claim.endpointId, busy);
    if (busy === this.opts.perEndpoint) this.#backlogged.add(claim.endpointId);
    let slotHeld = true;
    // The slot is the send's: freed once the receiver answered (or the attempt ended unsent), while
    // its outcome is still being recorded, so the endpoint's next send does not wait for that write.
    // The delivery stays claimed (its token, its lease) until recorded: no claim can take it meanwhile.
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      // A claim may have been short of this slot: the pool was full or this endpoint at its cap.
      const poolFull = this.#inFlight === this.opts.concurrency;
      this.#inFlight--;
      const left = (this.#busy.get(claim.endpointId) ?? 1) - 1;
      if (left === 0) this.#busy.delete(claim.endpointId);
      else this.#busy.set(claim.endpointId, left);
      if (!this.#running) return;
      if (poolFull) this.wake();
      else if (this.#backlogged.has(claim.endpointId)) void this.#refill(claim.endpointId);
    };
    const attempt = this.#attempt(claim, freeSlot).finally(() => {
      freeSlot();
      this.#inFlightIds.delete(claim.id);
      this.#attempts.delete(attempt);
    });
    this.#attempts.add(attempt);
    return attempt;
  }

  /**
   * One attempt, in a span of the trace that queued the delivery (the merchant's request that
   * changed the shipment), so a create shows as one trace from the gateway to each attempt.
   */
  #attempt(claim: ClaimedDelivery, sent: () => void): Promise<void> {
    const parent = claim.traceParent ? propagation.extract(ROOT_CONTEXT, { traceparent: claim.traceParent }) : ROOT_CONTEXT;
    const span = tracer().startSpan("webhook attempt", { kind: SpanKind.CLIENT, attributes: { "tawsil.webhook.delivery_id": claim.id, "tawsil.webhook.attempt": claim.attempt } }, parent);
    let stage: AttemptStage | undefined;
    const enter = (next: AttemptStage | undefined) => {
      if (stage) this.opts.observer.inFlight(stage, -1);
      if (next) this.opts.observer.inFlight(next, 1);
      stage = next;
    };
    return context.with(trace.setSpan(parent, span), async () => {
      try {
        if (claim.attempt === 1) this.opts.observer.firstAttemptLag(Math.max(0, (this.opts.clock.now().getTime() - claim.occurredAt.getTime()) / 1000));
        const done = await attemptDelivery(this.opts, claim, enter);
        sent();
        if ("notSent" in done) {
          this.opts.logger.warn({ deliveryId: claim.id, attempt: claim.attempt }, "webhook attempt given back unsent: too little of its lease left");
          enter(undefined);
          await this.opts.queue.release([claim], this.opts.clock.now());
          return;
        }
        const { record, outcome } = done;
        span.setAttribute("tawsil.webhook.outcome", record.outcome);
        if (outcome.kind !== "delivered") span.setStatus({ code: SpanStatusCode.ERROR, message: record.outcome });
        this.opts.logger.debug({ deliveryId: claim.id, attempt: claim.attempt, outcome: record.outcome }, "webhook attempt");
        enter("recording");
        if (!(await this.#recorder.record({ claim, record, outcome }))) {
          this.#unrecorded.set(claim.id, claim.leaseUntil.getTime());
          return;
        }
        this.opts.observer.attempted(record.outcome, record.statusCode);
        if (outcome.kind !== "delivered") {
          this.opts.logger.info({ deliveryId: claim.id, attempt: claim.attempt, outcome: record.outcome, next: outcome.kind }, "webhook attempt failed");
        }
      } catch (err) {
        // Not an answer of the receiver but our own failure: the lease expires and a later claim retries.
        span.setStatus({ code: SpanStatusCode.ERROR });
        this.opts.logger.error({ err, deliveryId: claim.id }, "webhook attempt failed before sending");
      } finally {
        enter(undefined);
        span.end();
      }
    });
  }

  async #run(): Promise<void> {
    while (this.#running) {
      // Woken (work queued or freed here, a resume): whatever comes next is looked for soon again.
      if (this.#woken) this.#quietLooks = 0;
      this.#woken = false;
      const free = this.opts.concurrency - this.#inFlight;
      let claimed = 0;
      let failed = false;
      try {
        claimed = (await this.#claim()).length;
      } catch (err) {
        failed = true;
        this.opts.logger.error({ err }, "claiming webhook deliveries failed; retrying");
      }
      if (!this.#running) break;
      if (this.#woken || (free > 0 && claimed === free)) continue;
      this.#quietLooks = claimed > 0 || failed ? 0 : this.#quietLooks + 1;
      // Pool full: a freed slot wakes the loop. Otherwise sleep until the next delivery this replica may take is due.
      await this.#sleep(free <= claimed || failed ? this.opts.idleMs : await this.#untilNextDue());
    }
  }

  /** How long to sleep: until the next due delivery, at most the quiet sleep; idleMs when the look fails. */
  async #untilNextDue(): Promise<number> {
    const longest = this.opts.idleMs * Math.min(2 ** Math.max(0, this.#quietLooks - 1), QUIET_GROWTH);
    try {
      const full = [...this.#busy].filter(([, n]) => n >= this.opts.perEndpoint).map(([id]) => id);
      const due = await this.opts.queue.nextDueAt(full);
      if (!due) return longest;
      return Math.min(longest, Math.max(0, due.getTime() - this.opts.clock.now().getTime()));
    } catch {
      this.#quietLooks = 0;
      return this.opts.idleMs;
    }
  }

  #sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.#woken) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const wake = () => done();
      this.#wake = wake;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}
