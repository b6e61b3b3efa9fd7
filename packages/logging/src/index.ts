export { createLogger, type Logger } from "./logger";
export { initTracing, currentTraceId } from "./tracing";
