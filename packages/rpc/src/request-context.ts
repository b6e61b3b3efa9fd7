import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { isUuid } from "@tawsil/domain";

interface RequestContext {
  readonly requestId: string;
  /** The calling service, once its token is checked (logs, metrics). */
  caller: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Accepts a caller's request id only when it is a uuid, so nothing arbitrary reaches logs or peers. */
export function requestIdFrom(header: string | null): string {
  return header !== null && isUuid(header) ? header.toLowerCase() : randomUUID();
}

export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId, caller: "anonymous" }, fn);
}

/** Records the caller of the request being served. */
export function setCurrentCaller(caller: string): void {
  const store = storage.getStore();
  if (store) store.caller = caller;
}

/** The service calling the request being served ("anonymous" for health and operator calls, or with identity off). */
export function currentCaller(): string | undefined {
  return storage.getStore()?.caller;
}

/** The id of the request being served, carried to peers as `x-request-id`. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
