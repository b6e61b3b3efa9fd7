export { loadConfig, ConfigError } from "./load-config";
export { commonEnv, databaseEnv, kafkaEnv, peerUrl, type CommonEnv } from "./common";
