// The gateway's process, shaped like every service's: runProcess parses the configuration once,
// starts tracing and logging, and runs the composition root (server.ts); a failure to start is a
// fatal log line and exit 1, never an unhandled rejection.
import { runProcess } from "@tawsil/rpc";
import { readConfig } from "./config";
import { gatewayProcess } from "./server";

await runProcess("gateway", readConfig, gatewayProcess, { tracesRatio: (config) => config.OTEL_TRACES_SAMPLER_RATIO });
