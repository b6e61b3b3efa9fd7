import { consumerRetention } from "@tawsil/events";
import type { RetentionPolicy } from "@tawsil/retention";
import type { Config } from "../config";

const DAY_MS = 86_400_000;

/**
 * A delivery and its attempts, `days` after its last attempt: completed_at, which a delivery gets
 * when it succeeds or exhausts its attempts (a pending delivery has none and is never touched).
 * One statement per batch; the attempts are found by their primary key (delivery_id, number).
 */
function deliveries(days: number): RetentionPolicy {
  return {
    table: "webhook_delivery",
    periodMs: days * DAY_MS,
    alsoDeletes: ["webhook_attempt"],
    deleteBatch: `WITH doomed AS (
        SELECT id FROM webhook_delivery WHERE completed_at < $1 ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED),
      attempts AS (DELETE FROM webhook_attempt WHERE delivery_id IN (SELECT id FROM doomed) RETURNING 1),
      deliveries AS (DELETE FROM webhook_delivery WHERE id IN (SELECT id FROM doomed) RETURNING 1)
      SELECT (SELECT count(*) FROM deliveries)::int AS deleted, (SELECT count(*) FROM attempts)::int AS webhook_attempt`,
    oldest: `SELECT min(completed_at) AS anchor FROM webhook_delivery WHERE completed_at IS NOT NULL`,
  };
}

/** Every growing table of the webhook service (decisions.md section 18). */
export function webhookRetention(config: Config): RetentionPolicy[] {
  return [...consumerRetention(config), deliveries(config.WEBHOOK_DELIVERY_RETENTION_DAYS)];
}
