import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Logger } from "@tawsil/logging";
import { attemptDelivery, type AttemptDeps } from "./attempt-delivery";
import type { ClaimedDelivery, CompletedAttempt, DeliveryObserver, DeliveryQueue } from "./ports";

export interface DeliveryEngineOptions extends AttemptDeps {
  readonly queue: DeliveryQueue;
  readonly observer: DeliveryObserver;
  readonly logger: Logger;
  /** Deliveries claimed and sent concurrently per round. */
  readonly batchSize: number;
  /** Longest sleep when nothing is due: bounds how late another replica's new event or a resumed endpoint is noticed. */
  readonly idleMs: number;
}

const tracer = () => trace.getTracer("@tawsil/webhook");

/**
 * One replica's sender. Each round claims a batch of due deliveries (SKIP LOCKED, so replicas never
 * share a row), sends them concurrently and records each outcome. Between rounds it sleeps until the
 * next delivery is due, at most idleMs, and a wake() (a new event queued here) cuts the sleep short:
 * no work while nothing is due, and no scan that grows with the queue.
 */
export class DeliveryEngine {
  readonly name = "delivery-engine";
  #running = false;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #woken = false;

  constructor(private readonly opts: DeliveryEngineOptions) {}

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Something may be due now: run a round without waiting for the timer. */
  wake(): void {
    this.#woken = true;
    this.#wake?.();
  }

  async close(): Promise<void> {
    this.#running = false;
    this.wake();
    await this.#loop;
  }

  /** Claims and attempts one batch; returns how many were attempted. Tests drive the engine with it. */
  async runOnce(): Promise<number> {
    const now = this.opts.clock.now();
    // The lease outlives the attempt's timeout, so a live worker always records its own outcome.
    const claims = await this.opts.queue.claimDue(now, this.opts.batchSize, this.opts.timeoutMs * 2 + 30_000);
    const results = (await Promise.all(claims.map((claim) => this.#attempt(claim)))).filter((r) => r !== undefined);
    try {
      await this.opts.queue.complete(results);
    } catch (err) {
      // The leases expire and later rounds make these attempts again, under the same webhook-id.
      this.opts.logger.error({ err, deliveries: results.length }, "webhook attempts could not be recorded");
      return claims.length;
    }
    for (const { claim, record, outcome } of results) {
      this.opts.observer.attempted(record.outcome, record.statusCode);
      if (outcome.kind !== "delivered") {
        this.opts.logger.info({ deliveryId: claim.id, attempt: claim.attempt, outcome: record.outcome, next: outcome.kind }, "webhook attempt failed");
      }
    }
    return claims.length;
  }

  /**
   * One attempt, in a span of the trace that queued the delivery (the merchant's request that
   * changed the shipment), so a create shows as one trace from the gateway to each attempt.
   */
  #attempt(claim: ClaimedDelivery): Promise<CompletedAttempt | undefined> {
    const parent = claim.traceParent ? propagation.extract(ROOT_CONTEXT, { traceparent: claim.traceParent }) : ROOT_CONTEXT;
    const span = tracer().startSpan("webhook attempt", { kind: SpanKind.CLIENT, attributes: { "tawsil.webhook.delivery_id": claim.id, "tawsil.webhook.attempt": claim.attempt } }, parent);
    return context.with(trace.setSpan(parent, span), async () => {
      try {
        if (claim.attempt === 1) this.opts.observer.firstAttemptLag(Math.max(0, (this.opts.clock.now().getTime() - claim.occurredAt.getTime()) / 1000));
        const done = await attemptDelivery(this.opts, claim);
        span.setAttribute("tawsil.webhook.outcome", done.record.outcome);
        if (done.outcome.kind !== "delivered") span.setStatus({ code: SpanStatusCode.ERROR, message: done.record.outcome });
        this.opts.logger.debug({ deliveryId: claim.id, attempt: claim.attempt, outcome: done.record.outcome }, "webhook attempt");
        return { claim, ...done };
      } catch (err) {
        // Not an answer of the receiver but our own failure: the lease expires and a later round retries.
        span.setStatus({ code: SpanStatusCode.ERROR });
        this.opts.logger.error({ err, deliveryId: claim.id }, "webhook attempt failed before sending");
        return undefined;
      } finally {
        span.end();
      }
    });
  }

  async #run(): Promise<void> {
    while (this.#running) {
      this.#woken = false;
      let attempted = 0;
      try {
        attempted = await this.runOnce();
      } catch (err) {
        this.opts.logger.error({ err }, "claiming webhook deliveries failed; retrying");
      }
      if (!this.#running) break;
      if (attempted === this.opts.batchSize || this.#woken) continue;
      await this.#sleep(await this.#untilNextDue());
    }
  }

  async #untilNextDue(): Promise<number> {
    try {
      const due = await this.opts.queue.nextDueAt();
      if (!due) return this.opts.idleMs;
      return Math.min(this.opts.idleMs, Math.max(0, due.getTime() - this.opts.clock.now().getTime()));
    } catch {
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
