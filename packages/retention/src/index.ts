export { expiresByColumn, type RetentionPolicy } from "./policy";
export { RETENTION_LOCK_KEY, RetentionJob, startRetention, type RetentionJobOptions, type RetentionSettings, type RetentionRun, type TableRun } from "./retention-job";
export { RETENTION_METRICS, registerRetentionMetrics, type RetentionMetrics } from "./retention-metrics";
