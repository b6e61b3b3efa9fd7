import { randomUUID } from "node:crypto";
import http from "node:http";
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { runWithRequestId } from "@tawsil/rpc";

// Looked up per request, not at import: a tracer taken before the SDK registers stays a no-op.
const tracer = () => trace.getTracer("@tawsil/gateway");

const headerGetter = {
  get: (carrier: http.IncomingHttpHeaders, key: string) => {
    const value = carrier[key];
    return Array.isArray(value) ? value[0] : value;
  },
  keys: (carrier: http.IncomingHttpHeaders) => Object.keys(carrier),
};

/** Of fastify's server settings as it hands them to a server factory (its default applied: 72 s). */
export interface ServerTimeouts {
  readonly keepAliveTimeout?: number;
}

const REQUEST_ID = Symbol("tawsil.requestId");
type Identified = http.IncomingMessage & { [REQUEST_ID]?: string };

/**
 * Fastify's server factory: each request runs inside a span that continues the caller's W3C
 * `traceparent` (or starts a trace), so logs, problems and calls to the services share its trace id,
 * and under its request id (the answer's `X-Request-Id`), which every call to a service carries as
 * `x-request-id`: one id finds a failed request's lines in the gateway's log and the services'.
 */
export function tracedServerFactory(handler: http.RequestListener, options: ServerTimeouts): http.Server {
  const server = http.createServer((req, res) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers, headerGetter);
    const span = tracer().startSpan(`HTTP ${req.method ?? ""}`, { kind: SpanKind.SERVER }, parent);
    res.once("close", () => {
      // The status an exported trace is searched by (the dashboard's links); an unsampled span keeps nothing.
      if (span.isRecording()) {
        span.setAttribute("http.response.status_code", res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    const requestId = randomUUID();
    (req as Identified)[REQUEST_ID] = requestId;
    runWithRequestId(trace.setSpan(parent, span), requestId, () => handler(req, res));
  });
  // Fastify sets this only on a server it makes itself. Without it Node keeps an idle connection
  // 5 s: shorter than the ingress's upstream keep-alive (nginx: 60 s) and than what a client
  // reusing connections expects, so a request sent as the gateway closes the connection is reset
  // (a soak saw ECONNRESET on an estimate). Fastify's 72 s outlives the proxy's 60 s. Node's own
  // request and header deadlines (300 s, 60 s) stay: fastify's server would turn the first off.
  server.keepAliveTimeout = options.keepAliveTimeout ?? 72_000;
  return server;
}

/** The request id the server factory gave this request (fastify's `request.id`). */
export function requestIdOf(req: http.IncomingMessage): string {
  return (req as Identified)[REQUEST_ID] ?? randomUUID();
}
