import http from "node:http";
import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";

// Looked up per request, not at import: a tracer taken before the SDK registers stays a no-op.
const tracer = () => trace.getTracer("@tawsil/gateway");

const headerGetter = {
  get: (carrier: http.IncomingHttpHeaders, key: string) => {
    const value = carrier[key];
    return Array.isArray(value) ? value[0] : value;
  },
  keys: (carrier: http.IncomingHttpHeaders) => Object.keys(carrier),
};

/**
 * Fastify's server factory: each request runs inside a span that continues the caller's W3C
 * `traceparent` (or starts a trace), so logs, problems and calls to the services share its trace id.
 */
export function tracedServerFactory(handler: http.RequestListener): http.Server {
  return http.createServer((req, res) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers, headerGetter);
    const span = tracer().startSpan(`HTTP ${req.method ?? ""}`, { kind: SpanKind.SERVER }, parent);
    res.once("close", () => span.end());
    context.with(trace.setSpan(parent, span), () => handler(req, res));
  });
}
