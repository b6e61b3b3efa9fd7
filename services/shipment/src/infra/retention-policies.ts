import { outboxRetention, processedEventRetention } from "@tawsil/events";
import { expiresByColumn, type RetentionPolicy } from "@tawsil/retention";
import type { Config } from "../config";

/**
 * Every growing table of the shipment service (decisions.md section 18); shipments themselves are
 * kept. An idempotency record carries its own expiry (expires_at, IDEMPOTENCY_RETENTION_HOURS after
 * it was stored; lookups already ignore an expired one): it goes once that time has passed.
 */
export function shipmentRetention(config: Config): RetentionPolicy[] {
  return [
    outboxRetention(config.OUTBOX_RETENTION_DAYS),
    processedEventRetention(config.PROCESSED_EVENT_RETENTION_DAYS),
    expiresByColumn({ table: "idempotency_record", column: "expires_at", periodMs: config.IDEMPOTENCY_RETENTION_HOURS * 3_600_000, anchorIsExpiry: true }),
  ];
}
