export { createLogger, type Logger } from "./logger";
export { createTracerProvider, currentTraceId, initTracing, shutdownTracing, type TracingOptions } from "./tracing";
