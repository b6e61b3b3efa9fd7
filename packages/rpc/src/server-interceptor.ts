import type { Interceptor } from "@connectrpc/connect";
import { Code } from "@connectrpc/connect";
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Logger } from "@tawsil/logging";
import { ANONYMOUS, authorize, type CallerCheck } from "./caller-check";
import { toEdgeError } from "./error-edge";
import type { Metrics } from "./metrics";
import { requestIdFrom, runWithRequestId, setCurrentCaller } from "./request-context";

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
 * Every inbound RPC: continues the caller's W3C trace, adopts (or creates) the request id, checks
 * the calling service against the allow-list (when `callers` is given), records latency by outcome
 * and caller (health probes excepted), and turns unexpected errors into a bare Internal error at the edge.
 */
export function serverInterceptor(logger: Logger, metrics: Metrics, callers?: CallerCheck): Interceptor {
  return (next) => (req) => {
    const procedure = `${req.service.typeName}/${req.method.name}`;
    const parent = propagation.extract(ROOT_CONTEXT, req.header, headerGetter);
    const span = tracer().startSpan(procedure, { kind: SpanKind.SERVER }, parent);
    const requestId = requestIdFrom(req.header.get("x-request-id"));
    // Everything below, error logging included, runs inside the span and the request id.
    return runWithRequestId(trace.setSpan(parent, span), requestId, async () => {
      const started = performance.now();
      const record = (code: string, caller: string) => {
        if (req.service.typeName !== PROBE_SERVICE) metrics.rpcDuration.observe({ procedure, code, caller }, (performance.now() - started) / 1000);
      };
      let caller = ANONYMOUS;
      let admitted = callers === undefined;
      try {
        if (callers) {
          // A caller whose token is already verified is known at once: no await for it.
          const authorized = authorize(callers, req.service.typeName, procedure, req.header);
          caller = typeof authorized === "string" ? authorized : await authorized;
          admitted = true;
          setCurrentCaller(caller);
          span.setAttribute("tawsil.caller", caller);
        }
        const res = await next(req);
        res.header.set("x-request-id", requestId);
        record("ok", caller);
        return res;
      } catch (error) {
        const edge = toEdgeError(error, logger, procedure);
        // Never the token itself: only what was refused.
        if (!admitted) logger.warn({ procedure, code: Code[edge.code], reason: edge.rawMessage }, "caller refused");
        record(Code[edge.code] ?? "unknown", caller);
        if (edge.code === Code.Internal || edge.code === Code.Unknown) span.setStatus({ code: SpanStatusCode.ERROR });
        edge.metadata.set("x-request-id", requestId);
        throw edge;
      } finally {
        span.end();
      }
    });
  };
}

