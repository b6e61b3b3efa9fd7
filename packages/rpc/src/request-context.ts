import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { context, createContextKey, ROOT_CONTEXT, type Context } from "@opentelemetry/api";
import { isUuid } from "@tawsil/domain";

interface RequestContext {
  readonly requestId: string;
  /** The calling service, once its token is checked (logs, metrics). */
  caller: string;
}

/**
 * Where the request being served is kept: in the OpenTelemetry context its span already runs in,
 * so a call pays one AsyncLocalStorage (OpenTelemetry's) instead of two. Every AsyncLocalStorage
 * in use makes Node (20) copy its store onto every promise and async resource the process creates,
 * so a second one was paid on every await of every request, in every service. Without a context
 * manager (a process or test that never called initTracing) OpenTelemetry's context carries
 * nothing across awaits, and the request lives in a storage of its own as before.
 */
const REQUEST = createContextKey("tawsil.request");
const fallback = new AsyncLocalStorage<RequestContext>();

let contextCarries = false;
/** Whether OpenTelemetry's context manager is registered; once it is, it stays. */
function otelContextCarries(): boolean {
  if (!contextCarries) {
    const probe = ROOT_CONTEXT.setValue(REQUEST, "probe");
    contextCarries = context.with(probe, () => context.active() === probe);
  }
  return contextCarries;
}

function current(): RequestContext | undefined {
  return (context.active().getValue(REQUEST) as RequestContext | undefined) ?? fallback.getStore();
}

/** Accepts a caller's request id only when it is a uuid, so nothing arbitrary reaches logs or peers. */
export function requestIdFrom(header: string | null): string {
  return header !== null && isUuid(header) ? header.toLowerCase() : randomUUID();
}

/** Runs `fn` in `parent` (the request's span), serving `requestId`. */
export function runWithRequestId<T>(parent: Context, requestId: string, fn: () => T): T {
  const request: RequestContext = { requestId, caller: "anonymous" };
  if (otelContextCarries()) return context.with(parent.setValue(REQUEST, request), fn);
  return context.with(parent, () => fallback.run(request, fn));
}

/** Records the caller of the request being served. */
export function setCurrentCaller(caller: string): void {
  const request = current();
  if (request) request.caller = caller;
}

/** The service calling the request being served ("anonymous" for health and operator calls, or with identity off). */
export function currentCaller(): string | undefined {
  return current()?.caller;
}

/** The id of the request being served, carried to peers as `x-request-id`. */
export function currentRequestId(): string | undefined {
  return current()?.requestId;
}
