import { trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { AlwaysOffSampler, BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace-node";

export interface TracingOptions {
  /** `service.name` of the exported spans (OTEL_SERVICE_NAME, else the process's name). */
  readonly serviceName: string;
  /** OTLP/HTTP base URL of the collector (OTEL_EXPORTER_OTLP_ENDPOINT); spans go to `<endpoint>/v1/traces`. */
  readonly endpoint?: string | undefined;
  /**
   * Share of new root traces sampled, with an endpoint (OTEL_TRACES_SAMPLER_RATIO, the gateway's
   * only: where a merchant's request starts a trace). 0 elsewhere: a service's own roots are health
   * probes and background polls, and its part of a request's trace follows the caller's decision.
   */
  readonly rootRatio?: number | undefined;
}

let provider: NodeTracerProvider | undefined;

/**
 * The process's tracer provider, not registered. Without an endpoint it is the one of before
 * export existed: no span processor, new roots never sampled, so only a caller's sampled
 * traceparent records anything (recording every span is work on every call for nothing when
 * nothing is exported). With one, spans are batched to the collector in the background.
 *
 * Sampling is parent-based in every case: a trace is sampled where it starts (the gateway) and
 * whole, never in pieces that each process decided on its own.
 */
export function createTracerProvider(opts: TracingOptions): NodeTracerProvider {
  if (!opts.endpoint) return new NodeTracerProvider({ sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }) });
  const root = opts.rootRatio ? new TraceIdRatioBasedSampler(opts.rootRatio) : new AlwaysOffSampler();
  // Shorter than the exporter's default 10 s: the last flush runs inside a pod's shutdown limit.
  const exporter = new OTLPTraceExporter({ url: `${opts.endpoint.replace(/\/+$/, "")}/v1/traces`, timeoutMillis: 5_000 });
  return new NodeTracerProvider({
    sampler: new ParentBasedSampler({ root }),
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: opts.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
}

/**
 * Registers the OpenTelemetry SDK once per process: AsyncLocalStorage context, the W3C
 * traceparent/baggage propagators and real span ids. Unsampled spans still carry real trace and
 * span ids, so propagation, log lines and problem traceIds are the same with export on or off.
 * Without options (tests), nothing is exported.
 */
export function initTracing(opts: TracingOptions = { serviceName: "unknown_service" }): void {
  if (provider) return;
  provider = createTracerProvider(opts);
  provider.register();
}

/** Exports the spans still batched, then stops exporting: the last closer of a process's shutdown. */
export async function shutdownTracing(): Promise<void> {
  await provider?.shutdown();
}

/** The active trace id (32 lowercase hex) or undefined outside a span. */
export function currentTraceId(): string | undefined {
  const context = trace.getActiveSpan()?.spanContext();
  return context && trace.isSpanContextValid(context) ? context.traceId : undefined;
}

/** Returned outside a span so that most log lines allocate nothing for trace ids. */
export const NO_TRACE: Record<string, string> = Object.freeze({});

/** Log mixin: trace and span ids of the active span, or nothing (no allocation) outside one. */
export function currentTraceIds(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext();
  if (!context || !trace.isSpanContextValid(context)) return NO_TRACE;
  return { traceId: context.traceId, spanId: context.spanId };
}
