export { configProblems, loadConfig, ConfigError, problemSettings } from "./load-config";
export { ADMIN_PORT_OFFSET, adminEnv, commonEnv, consumerEnv, databaseEnv, kafkaEnv, outboxRetentionEnv, retentionEnv, METRICS_PORT_OFFSET, peerUrl, sidePort, type AdminEnv, type CommonEnv, type KafkaEnv } from "./common";
