export { configProblems, loadConfig, ConfigError, problemSettings } from "./load-config";
export { ADMIN_PORT_OFFSET, adminEnv, commonEnv, consumerEnv, databaseEnv, databaseTlsEnv, kafkaEnv, outboxRetentionEnv, retentionEnv, METRICS_PORT_OFFSET, peerUrl, retentionPeriod, sidePort, type AdminEnv, type CommonEnv, type DatabaseTls, type KafkaEnv } from "./common";
export { databaseUrlWithTls, withDatabaseTls } from "./database-tls";
