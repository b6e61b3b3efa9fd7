import type { Interceptor } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Logger } from "@tawsil/logging";
import { toEdgeError } from "./error-edge";
import type { Metrics } from "./metrics";
import { requestIdFrom, runWithRequestId } from "./request-context";

/**
 * The health protocol is a probe, like /readyz, not traffic: the gateway asks every service each
 * second, and such answers in the RPC metrics would dilute the error-rate and latency alerts of a
 * quiet service until a real outage no longer crossed their thresholds.
 */
const PROBE_SERVICE = "grpc.health.v1.Health";

// Looked up per request, not at import: a tracer taken before the SDK registers stays a no-op.
const tracer = () => trace.getTracer("@tawsil/rpc");

const headerGetter = {
  get: (carrier: Headers, key: string) => carrier.get(key) ?? undefined,
  keys: (carrier: Headers) => [...carrier.keys()],
};

/**
 * Every inbound RPC: continues the caller's W3C trace, adopts (or creates) the request id, records
 * latency by outcome (health probes excepted), and turns unexpected errors into a bare Internal error at the edge.
 */
export function serverInterceptor(logger: Logger, metrics: Metrics): Interceptor {
  return (next) => (req) => {
    const procedure = `${req.service.typeName}/${req.method.name}`;
    const parent = propagation.extract(ROOT_CONTEXT, req.header, headerGetter);
    const span = tracer().startSpan(procedure, { kind: SpanKind.SERVER }, parent);
    const requestId = requestIdFrom(req.header.get("x-request-id"));
    // Everything below, error logging included, runs inside the span and the request id.
    return context.with(trace.setSpan(parent, span), () =>
      runWithRequestId(requestId, async () => {
        const stopTimer = req.service.typeName === PROBE_SERVICE ? () => 0 : metrics.rpcDuration.startTimer({ procedure });
        try {
          const res = await next(req);
          res.header.set("x-request-id", requestId);
          stopTimer({ code: "ok" });
          return res;
        } catch (error) {
          const edge = toEdgeError(error, logger, procedure);
          stopTimer({ code: Code[edge.code] ?? "unknown" });
          if (edge.code === Code.Internal || edge.code === Code.Unknown) span.setStatus({ code: SpanStatusCode.ERROR });
          edge.metadata.set("x-request-id", requestId);
          throw edge;
        } finally {
          span.end();
        }
      }),
    );
  };
}

