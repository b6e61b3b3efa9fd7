import { trace } from "@opentelemetry/api";
import { AlwaysOffSampler, NodeTracerProvider, ParentBasedSampler } from "@opentelemetry/sdk-trace-node";

let provider: NodeTracerProvider | undefined;

/**
 * Registers the OpenTelemetry SDK once per process: AsyncLocalStorage context, the W3C
 * traceparent/baggage propagators and real span ids. No exporter is configured here; one can be
 * added where a collector exists without touching any call site.
 *
 * Spans are recorded only when the caller's traceparent asks for it (parent-based sampling, new
 * roots not sampled): with nothing to export, recording every span is work on every call for
 * nothing. Unsampled spans still carry real trace and span ids, so propagation, log lines and
 * problem traceIds are unchanged.
 */
export function initTracing(): void {
  if (provider) return;
  provider = new NodeTracerProvider({ sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }) });
  provider.register();
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
