import { collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { registerHeapAfterGc } from "./heap-after-gc";

export interface Metrics {
  readonly registry: Registry;
  readonly rpcDuration: Histogram<"procedure" | "code" | "caller">;
}

/** One registry per process, with Node's default metrics and the RPC latency histogram. */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  // The event-loop delay monitor is a timer firing at its precision: the default 10 ms costs an
  // idle process about 0.3% of a core (measured: 0.48% against 0.18% with no monitor), the
  // largest part of an idle service's CPU; at 100 ms it costs 0.05%, and still sees every stall
  // that matters to a request.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  registerHeapAfterGc(registry);
  const rpcDuration = new Histogram({
    name: "rpc_server_duration_seconds",
    help: "Time to handle an RPC, by procedure, Connect code and calling service.",
    labelNames: ["procedure", "code", "caller"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return { registry, rpcDuration };
}
