import type http2 from "node:http2";
import net, { isIP } from "node:net";
import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { context, propagation } from "@opentelemetry/api";
import { interceptedTransport } from "./intercepted-transport";
import { currentRequestId } from "./request-context";
import { audienceOf, SERVICE_TOKEN_HEADER, type ServiceIdentity } from "./service-identity";
import { dnsAddresses, SpreadTransport, type Lookup } from "./spread-transport";

export interface PeerClientOptions {
  /** Deadline for calls that do not set their own; a peer that hangs fails the call, never the caller. */
  readonly timeoutMs?: number;
  /** This process's identity: every call carries its service token for the callee. */
  readonly identity?: ServiceIdentity | undefined;
  /** Resolves the peer's host name to every replica's address (default: DNS, every record). */
  readonly lookup?: Lookup;
  /** How often the host name is resolved again (default 5 s, kube-dns's cache time for a headless Service). */
  readonly resolveEveryMs?: number;
  /** Run before the call leaves, after the trace context and the service token are set (the gateway's per-peer circuit). */
  readonly interceptors?: readonly Interceptor[];
  /**
   * Called when an established connection to the peer closes: the peer stopped or drained, the
   * network reset it, or it was idle too long. Not for a connection attempt that failed (that
   * fails the call that made it), so a caller that calls again from here cannot loop.
   */
  readonly onConnectionClosed?: () => void;
}

const headerSetter = { set: (carrier: Headers, key: string, value: string) => carrier.set(key, value) };

/** Carries the current trace context and request id to the peer. */
const propagateContext: Interceptor = (next) => (req) => {
  propagation.inject(context.active(), req.header, headerSetter);
  const requestId = currentRequestId();
  if (requestId) req.header.set("x-request-id", requestId);
  return next(req);
};

/** Adds the caller's service token for `audience`: the cached one, so a call signs nothing. */
function signCalls(identity: ServiceIdentity, audience: string): Interceptor {
  return (next) => (req) => {
    const token = identity.tokenFor(audience);
    if (typeof token === "string") {
      req.header.set(SERVICE_TOKEN_HEADER, token);
      return next(req);
    }
    return token.then((signed) => {
      req.header.set(SERVICE_TOKEN_HEADER, signed);
      return next(req);
    });
  };
}

/**
 * A Connect client for a peer service over HTTP/2 cleartext, created once at start-up and shared.
 * An address (`http://127.0.0.1:7002`) gets one multiplexed HTTP/2 session. A host name (in
 * Kubernetes, a headless Service: one DNS record per ready pod) gets one session per address it
 * resolves to, and the calls take turns over them, so every replica of the peer serves its share.
 */
export function createPeerClient<T extends DescService>(service: T, baseUrl: string, opts: PeerClientOptions = {}): Client<T> {
  const interceptors = [propagateContext, ...(opts.identity ? [signCalls(opts.identity, audienceOf(service.typeName))] : []), ...(opts.interceptors ?? [])];
  const common = { httpVersion: "2", defaultTimeoutMs: opts.timeoutMs ?? 2000, interceptors } as const;
  const sessionOptions = opts.onConnectionClosed ? { createConnection: watchedConnection(opts.onConnectionClosed) } : undefined;
  const url = new URL(baseUrl);
  if (isIP(url.hostname.replace(/^\[|\]$/g, "")) !== 0) {
    return createClient(service, createConnectTransport({ baseUrl, ...common, ...(sessionOptions ? { nodeOptions: sessionOptions } : {}) }));
  }
  // The interceptors run once per call, around the spread (intercepted-transport.ts), not per replica tried.
  const spread = new SpreadTransport(url, (replicaUrl, sessionManager) => createConnectTransport({ baseUrl: replicaUrl, sessionManager, ...common, interceptors: [] }), {
    lookup: opts.lookup ?? dnsAddresses,
    resolveEveryMs: opts.resolveEveryMs ?? 5_000,
    downForMs: 1_000,
    ...(sessionOptions ? { sessionOptions } : {}),
  });
  return createClient(service, interceptedTransport(spread, baseUrl, interceptors));
}

/** A cleartext connection to the session's authority, as node:http2 opens one, that reports its close once it was established. */
function watchedConnection(onClosed: () => void): NonNullable<http2.ClientSessionOptions["createConnection"]> {
  return (authority) => {
    const socket = net.connect({ host: authority.hostname.replace(/^\[|\]$/g, ""), port: Number(authority.port || 80) });
    // Once the session is through with its own teardown: a call made from the close event itself
    // would find the session half torn down, whose error then had no listener left.
    socket.once("connect", () => socket.once("close", () => setImmediate(onClosed)));
    return socket;
  };
}
