import http from "node:http";
import http2 from "node:http2";
import net, { type Socket } from "node:net";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { Logger } from "@tawsil/logging";
import type { CallerCheck } from "./caller-check";
import { boundDeadline } from "./deadline-bound";
import { encodeGrpcMessageAsSpecified } from "./grpc-message";
import { listenOn } from "./listen";
import { registerHealthService } from "./health-service";
import type { Metrics } from "./metrics";
import { probeHandler, type NonRpcHandler } from "./probes";
import type { Readiness } from "./readiness";
import { serverInterceptor } from "./server-interceptor";

export interface RpcServerOptions {
  readonly host: string;
  readonly port: number;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly readiness: Readiness;
  /** Registers the service's domain handlers; the health service is added here for everyone. */
  readonly routes?: (router: ConnectRouter) => void;
  /** Fully-qualified names of the services `routes` registers, answered by the health protocol. */
  readonly serviceNames?: readonly string[];
  /** Upper bound on a caller's deadline: a longer one is shortened to it; a request without one keeps none. */
  readonly maxTimeoutMs?: number;
  /** Checks every RPC's calling service against its allow-list; without it any caller is served (local runs). */
  readonly callers?: CallerCheck | undefined;
  /** Answers what is not an RPC; the probes (/healthz, /readyz) unless given. */
  readonly fallback?: NonRpcHandler;
}

export interface RpcServer {
  readonly port: number;
  readonly url: string;
  /** Stops accepting, lets in-flight requests finish for up to `graceMs`, then cuts the rest. */
  close(graceMs: number): Promise<void>;
}

/** The client connection preface every HTTP/2 cleartext connection starts with (RFC 9113 3.4). */
const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/**
 * A Connect server on one port that speaks HTTP/2 cleartext (Connect, gRPC, gRPC-web) and HTTP/1.1
 * (Connect, probes), so the same port serves peers, curl and Kubernetes probes. Node's
 * cleartext HTTP/2 server cannot fall back to HTTP/1.1 (allowHTTP1 is TLS-only), so a TCP server
 * reads the first bytes of each connection and hands it to the HTTP/2 or the HTTP/1.1 server.
 */
export async function startRpcServer(opts: RpcServerOptions): Promise<RpcServer> {
  const maxTimeoutMs = opts.maxTimeoutMs ?? 30_000;
  const handler = connectNodeAdapter({
    routes: (router) => {
      registerHealthService(router, opts.readiness, opts.serviceNames ?? []);
      opts.routes?.(router);
    },
    interceptors: [serverInterceptor(opts.logger, opts.metrics, opts.callers)],
    maxTimeoutMs,
    fallback: opts.fallback ?? probeHandler(opts.readiness),
  });

  const sockets = new Set<Socket>();
  const sessions = new Set<http2.ServerHttp2Session>();
  let inFlight = 0;
  let idle: (() => void) | undefined;

  const onRequest = (req: http.IncomingMessage | http2.Http2ServerRequest, res: http.ServerResponse | http2.Http2ServerResponse) => {
    inFlight++;
    res.once("close", () => {
      if (--inFlight === 0) idle?.();
    });
    boundDeadline(req.headers, maxTimeoutMs);
    encodeGrpcMessageAsSpecified(req.headers["content-type"], res as unknown as Parameters<typeof encodeGrpcMessageAsSpecified>[1]);
    handler(req as http2.Http2ServerRequest, res as unknown as Parameters<typeof handler>[1]);
  };
  const h2 = http2.createServer({}, onRequest);
  const h1 = http.createServer(onRequest);
  h2.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.once("readable", () => {
      const head = socket.read() as Buffer | null;
      if (head === null) return;
      socket.unshift(head);
      const n = Math.min(head.length, H2_PREFACE.length);
      (head.subarray(0, n).equals(H2_PREFACE.subarray(0, n)) ? h2 : h1).emit("connection", socket);
    });
  });

  const port = await listenOn(server, opts.port, opts.host);

  return {
    port,
    url: `http://${opts.host}:${port}`,
    async close(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close(); // GOAWAY: finish open streams, accept no new ones
      h1.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([new Promise<void>((resolve) => (idle = resolve)), delay(graceMs)]);
      }
      // A peer may have sent new streams before our GOAWAY reached it; the session refuses them
      // (REFUSED_STREAM, which the peer retries elsewhere) and ends its socket after the last
      // bytes. Cutting sockets at once would fail those calls, and answers still in a socket's
      // buffer, with a reset instead; so they get a moment to end, then what is left is cut.
      h1.closeIdleConnections();
      await Promise.race([Promise.all([...sockets].map((socket) => whenClosed(socket))), delay(Math.min(graceMs, FLUSH_MS))]);
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** How long a drained server waits for its connections to end by themselves before cutting them. */
const FLUSH_MS = 500;

function whenClosed(emitter: { once(event: "close", listener: () => void): unknown }): Promise<void> {
  return new Promise((resolve) => emitter.once("close", () => resolve()));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
