import { Counter, Gauge, type Registry } from "prom-client";

/** Metric names deploy/base/alerts read (the <Service>RetentionBehind alerts). */
export const RETENTION_METRICS = {
  deleted: "retention_deleted_rows_total",
  oldestAge: "retention_oldest_row_age_seconds",
  period: "retention_period_seconds",
} as const;

export interface RetentionMetrics {
  readonly deleted: Counter<"table">;
  readonly oldestAge: Gauge<"table">;
  readonly period: Gauge<"table">;
}

/**
 * Per table: rows deleted, the age of its oldest row (how long ago that row's period started: 0
 * when the table holds none), and its period, so one alert rule compares the two whatever each
 * deployment sets (oldest age over twice the period: deletion is not keeping up).
 */
export function registerRetentionMetrics(registry: Registry): RetentionMetrics {
  return {
    deleted: new Counter({ name: RETENTION_METRICS.deleted, help: "Rows the retention job deleted, by table.", labelNames: ["table"] as const, registers: [registry] }),
    oldestAge: new Gauge({
      name: RETENTION_METRICS.oldestAge,
      help: "Seconds since the retention period of the table's oldest row started (0 when it holds none), as of the last retention run.",
      labelNames: ["table"] as const,
      registers: [registry],
    }),
    period: new Gauge({ name: RETENTION_METRICS.period, help: "The retention period of the table, in seconds.", labelNames: ["table"] as const, registers: [registry] }),
  };
}
