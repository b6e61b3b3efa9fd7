import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { context, propagation } from "@opentelemetry/api";
import { currentRequestId } from "./request-context";

export interface PeerClientOptions {
  /** Deadline for calls that do not set their own; a peer that hangs fails the call, never the caller. */
  readonly timeoutMs?: number;
  /** Run before the call leaves, after the trace context is set (the gateway's per-peer circuit). */
  readonly interceptors?: readonly Interceptor[];
}

const headerSetter = { set: (carrier: Headers, key: string, value: string) => carrier.set(key, value) };

/** Carries the current trace context and request id to the peer. */
const propagateContext: Interceptor = (next) => (req) => {
  propagation.inject(context.active(), req.header, headerSetter);
  const requestId = currentRequestId();
  if (requestId) req.header.set("x-request-id", requestId);
  return next(req);
};

/**
 * A Connect client for a peer service over HTTP/2 cleartext. One HTTP/2 session per peer is
 * multiplexed by every call, so create the client once at start-up and share it.
 */
export function createPeerClient<T extends DescService>(service: T, baseUrl: string, opts: PeerClientOptions = {}): Client<T> {
  const transport = createConnectTransport({
    baseUrl,
    httpVersion: "2",
    defaultTimeoutMs: opts.timeoutMs ?? 2000,
    interceptors: [propagateContext, ...(opts.interceptors ?? [])],
  });
  return createClient(service, transport);
}
