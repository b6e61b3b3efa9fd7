import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { DeliveryObserver, DeliveryQueue } from "../app/ports";

/** Attempts and outcomes by status, queue depth (read at scrape time), lag from event to first attempt, attempts in flight by stage. */
export function deliveryMetrics(registry: Registry, queue: DeliveryQueue): DeliveryObserver {
  const attempts = new Counter({
    name: "webhook_delivery_attempts_total",
    help: "Webhook delivery attempts by outcome and receiver status code.",
    labelNames: ["outcome", "status_code"] as const,
    registers: [registry],
  });
  const lag = new Histogram({
    name: "webhook_first_attempt_lag_seconds",
    help: "Time from the shipment change to the first delivery attempt of its webhook event.",
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  new Gauge({
    name: "webhook_queue_depth",
    help: "Webhook deliveries waiting for an attempt (due or scheduled).",
    registers: [registry],
    async collect() {
      this.set(await queue.depth());
    },
  });
  const inFlight = new Gauge({
    name: "webhook_attempts_in_flight",
    help: "This replica's webhook attempts under way, by stage: resolving the receiver's name, sending, recording the outcome.",
    labelNames: ["stage"] as const,
    registers: [registry],
  });
  for (const stage of ["resolving", "sending", "recording"] as const) inFlight.set({ stage }, 0);
  return {
    inFlight: (stage, delta) => inFlight.inc({ stage }, delta),
    attempted: (outcome, statusCode) => attempts.inc({ outcome: outcome.startsWith("HTTP_") ? "HTTP_ERROR" : outcome, status_code: statusCode === undefined ? "" : String(statusCode) }),
    firstAttemptLag: (seconds) => lag.observe(seconds),
  };
}

/** Deliveries never sent, by reason: held_over_24h, a pause's events older than 24 h at the resume (decisions.md section 11). */
export function droppedDeliveries(registry: Registry): Counter<"reason"> {
  const dropped = new Counter({ name: "webhook_deliveries_dropped_total", help: "Webhook deliveries dropped unsent, by reason (held_over_24h: held by a pause and older than 24 h at the resume).", labelNames: ["reason"] as const, registers: [registry] });
  dropped.inc({ reason: "held_over_24h" }, 0);
  return dropped;
}
