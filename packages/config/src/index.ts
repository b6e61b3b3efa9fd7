export { loadConfig, ConfigError } from "./load-config";
export { ADMIN_PORT_OFFSET, adminEnv, commonEnv, consumerEnv, databaseEnv, kafkaEnv, outboxRetentionEnv, retentionEnv, METRICS_PORT_OFFSET, peerUrl, retentionPeriod, sidePort, type AdminEnv, type CommonEnv } from "./common";
