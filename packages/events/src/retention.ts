import { expiresByColumn, type RetentionPolicy } from "@tawsil/retention";

const DAY_MS = 86_400_000;

/** Published outbox rows, `days` after they were sent (unsent rows are never touched); the (sent_at, seq) index serves both statements. */
export function outboxRetention(days: number): RetentionPolicy {
  return expiresByColumn({ table: "outbox_event", column: "sent_at", periodMs: days * DAY_MS, where: "sent_at IS NOT NULL" });
}

/** Processed-event records, `days` after the event was applied (longer than the broker keeps an event, so no redelivery outlives its record). */
export function processedEventRetention(days: number): RetentionPolicy {
  return expiresByColumn({ table: "processed_event", column: "processed_at", periodMs: days * DAY_MS });
}

/** Parked events (dead letters), `days` after they were parked, replayed, discarded or not. */
export function parkedEventRetention(days: number): RetentionPolicy {
  return expiresByColumn({ table: "parked_event", column: "parked_at", periodMs: days * DAY_MS });
}

/** The event tables of a service with idempotent consumers, from its consumerEnv settings. */
export function consumerRetention(settings: { PROCESSED_EVENT_RETENTION_DAYS: number; PARKED_EVENT_RETENTION_DAYS: number }): RetentionPolicy[] {
  return [processedEventRetention(settings.PROCESSED_EVENT_RETENTION_DAYS), parkedEventRetention(settings.PARKED_EVENT_RETENTION_DAYS)];
}
