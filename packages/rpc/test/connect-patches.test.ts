import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { connectNodeAdapter, createConnectTransport, createGrpcTransport, universalRequestFromNodeRequest } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@tawsil/proto/grpc/health/v1/health_pb";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

/**
 * The patches of @connectrpc/connect and @connectrpc/connect-node (patches/, pnpm-workspace.yaml):
 * a completed call builds no error object, stack trace and all, that nobody can see. What they keep
 * is checked too: the handler's and the caller's signals are still aborted once the call is over,
 * with an AbortError, as before.
 */
const handlerSignals: AbortSignal[] = [];
/** The signal of each request as connect-node's adapter makes it from the Node request (aborted when its stream closes). */
const requestSignals: AbortSignal[] = [];
let server: http2.Http2Server;
let baseUrl: string;
const sessions = new Set<http2.ServerHttp2Session>();

beforeAll(async () => {
  const adapter = connectNodeAdapter({
    routes: (router) =>
      router.service(Health, {
        async check(_req, ctx) {
          handlerSignals.push(ctx.signal);
          return { status: Status.SERVING };
        },
      }),
  });
  server = http2.createServer((req, res) => {
    requestSignals.push(universalRequestFromNodeRequest(req, res, undefined, undefined).signal);
    adapter(req, res);
  });
  server.on("session", (session) => sessions.add(session));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  // The clients' sessions stay open; the server's close would wait for them.
  for (const session of sessions) session.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** A client whose calls' signals are kept; a deadline, as our peer clients always set one. */
function client(protocol: "connect" | "grpc") {
  const signals: AbortSignal[] = [];
  const keep: Interceptor = (next) => (req) => (signals.push(req.signal), next(req));
  const options = { baseUrl, httpVersion: "2" as const, defaultTimeoutMs: 2_000, interceptors: [keep] };
  const transport = protocol === "connect" ? createConnectTransport(options) : createGrpcTransport(options);
  return { signals, health: createClient(Health, transport) };
}

describe.each(["connect", "grpc"] as const)("a completed unary call (%s protocol)", (protocol) => {
  it("aborts the handler's, the request's and the caller's signals with one shared AbortError, not a new one per call", async () => {
    handlerSignals.length = 0;
    requestSignals.length = 0;
    const { signals, health } = client(protocol);
    for (let i = 0; i < 3; i++) expect((await health.check({ service: "" })).status).toBe(Status.SERVING);
    // A request's signal is aborted when its stream closes, just after the answer went out.
    await expect.poll(() => requestSignals.filter((signal) => signal.aborted).length).toBe(3);

    for (const side of [handlerSignals, requestSignals, signals]) {
      expect(side).toHaveLength(3);
      for (const signal of side) {
        expect(signal.aborted).toBe(true);
        expect(signal.reason).toBeInstanceOf(DOMException);
        expect((signal.reason as DOMException).name).toBe("AbortError");
      }
      // Unpatched, each call's abort() made its own DOMException.
      expect(new Set(side.map((signal) => signal.reason)).size).toBe(1);
    }
  });

  it("builds no ConnectError when it succeeds", async () => {
    const { health } = client(protocol);
    await health.check({ service: "" }); // the session is open: what follows is one call's own work
    // Every ConnectError sets its prototype in its constructor; unpatched, the client's response
    // sentinel built one ("sentinel completed early") after every response, to reject a race that
    // had already settled.
    const setPrototypeOf = vi.spyOn(Object, "setPrototypeOf");
    try {
      for (let i = 0; i < 3; i++) await health.check({ service: "" });
      const built = setPrototypeOf.mock.calls.filter(([, prototype]) => prototype === ConnectError.prototype);
      expect(built).toHaveLength(0);
    } finally {
      setPrototypeOf.mockRestore();
    }
  });
});
