export { loadConfig, ConfigError } from "./load-config";
export { commonEnv, peerUrl, type CommonEnv } from "./common";
