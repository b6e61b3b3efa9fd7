import { consumerRetention } from "@tawsil/events";
import type { RetentionPolicy } from "@tawsil/retention";
import type { Config } from "../config";

const DAY_MS = 86_400_000;

/**
 * A projection goes whole, 90 days after its terminal state: the shipment row, its public history,
 * its assignment and any fix left, in one statement per batch (each child found by its primary key).
 */
function projections(days: number): RetentionPolicy {
  return {
    table: "tracked_shipment",
    periodMs: days * DAY_MS,
    alsoDeletes: ["status_change", "shipment_assignment", "driver_fix"],
    deleteBatch: `WITH doomed AS (
        SELECT shipment_id FROM tracked_shipment WHERE terminal_at < $1 ORDER BY terminal_at LIMIT $2 FOR UPDATE SKIP LOCKED),
      changes AS (DELETE FROM status_change WHERE shipment_id IN (SELECT shipment_id FROM doomed) RETURNING 1),
      assignments AS (DELETE FROM shipment_assignment WHERE shipment_id IN (SELECT shipment_id FROM doomed) RETURNING 1),
      fixes AS (DELETE FROM driver_fix WHERE shipment_id IN (SELECT shipment_id FROM doomed) RETURNING 1),
      shipments AS (DELETE FROM tracked_shipment WHERE shipment_id IN (SELECT shipment_id FROM doomed) RETURNING 1)
      SELECT (SELECT count(*) FROM shipments)::int AS deleted, (SELECT count(*) FROM changes)::int AS status_change,
        (SELECT count(*) FROM assignments)::int AS shipment_assignment, (SELECT count(*) FROM fixes)::int AS driver_fix`,
    oldest: `SELECT min(terminal_at) AS anchor FROM tracked_shipment WHERE terminal_at IS NOT NULL`,
  };
}

/**
 * A driver's fix, 30 days after the job ended: its shipment's terminal state before the cutoff (a
 * fix of a shipment this service never projected goes by its own time). Candidates come from the
 * recorded_at index: no fix postdates its job's end, so a fix past the cutoff by its job is past it
 * by its own time too. The oldest row is measured by recorded_at (an index probe): it reads at most
 * a job's duration older than by the job's end, hours against a period of days.
 */
function driverFixes(days: number): RetentionPolicy {
  return {
    table: "driver_fix",
    periodMs: days * DAY_MS,
    deleteBatch: `DELETE FROM driver_fix WHERE ctid = ANY(ARRAY(
        SELECT f.ctid FROM driver_fix f LEFT JOIN tracked_shipment t ON t.shipment_id = f.shipment_id
        WHERE f.recorded_at < $1 AND (t.shipment_id IS NULL OR t.terminal_at < $1)
        ORDER BY f.recorded_at LIMIT $2 FOR UPDATE OF f SKIP LOCKED))`,
    oldest: `SELECT min(recorded_at) AS anchor FROM driver_fix`,
  };
}

/** Every growing table of the tracking service (decisions.md section 18). */
export function trackingRetention(config: Config): RetentionPolicy[] {
  return [...consumerRetention(config), driverFixes(config.DRIVER_FIX_RETENTION_DAYS), projections(config.PROJECTION_RETENTION_DAYS)];
}
