import { propagation, ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Span } from "@opentelemetry/api";
import type { PublishedRecord } from "./publisher";

// Looked up per batch, not at import: a tracer taken before the SDK registers stays a no-op.
const tracer = () => trace.getTracer("@tawsil/events");

export interface PublishSpan {
  /** The record's span, only when its stored trace is sampled. */
  readonly span: Span | undefined;
  /** The trace headers to send: the span's own (the consumer becomes its child), else the stored ones. */
  readonly headers: Record<string, string>;
}

/**
 * The relay's producer span of one record, a child of the span that wrote the event. Only for a
 * sampled trace: the relay runs outside any request, and most stored traces are unsampled, where
 * a span would be work on every record for nothing; those records carry their stored headers as
 * before.
 */
export function startPublishSpan(record: PublishedRecord): PublishSpan {
  // Most records are of unsampled traces: the flag alone, without parsing the header (300 ns a record).
  if (!sampledFlag(record.headers.traceparent)) return { span: undefined, headers: record.headers };
  const parent = propagation.extract(ROOT_CONTEXT, record.headers);
  const stored = trace.getSpanContext(parent);
  if (!stored || (stored.traceFlags & TraceFlags.SAMPLED) === 0) return { span: undefined, headers: record.headers };
  const span = tracer().startSpan(`publish ${record.topic}`, { kind: SpanKind.PRODUCER }, parent);
  if (!span.isRecording()) return { span: undefined, headers: record.headers };
  span.setAttributes({ "messaging.system": "kafka", "messaging.destination.name": record.topic, "messaging.message.id": record.eventId, "messaging.kafka.message.key": record.key });
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), headers);
  return { span, headers };
}

/** The sampled bit of a W3C traceparent: its flags are characters 53 and 54 in every version. */
function sampledFlag(traceparent: string | undefined): boolean {
  return traceparent !== undefined && (Number.parseInt(traceparent.slice(53, 55), 16) & 1) === 1;
}
