import { Writable } from "node:stream";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { createLogger, initTracing } from "@tawsil/logging";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@tawsil/proto/grpc/health/v1/health_pb";
import { afterEach, describe, expect, it } from "vitest";
import { createMetrics, Readiness, startRpcServer, type RpcServer } from "../src/index";

initTracing();

function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ service: "test", level: "info", destination }), lines };
}

let server: RpcServer | undefined;
afterEach(async () => {
  await server?.close(100);
  server = undefined;
});

async function start(checks: { name: string; check: () => Promise<void> }[], readiness?: Readiness) {
  const { logger, lines } = capturedLogger();
  const metrics = createMetrics("test");
  server = await startRpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    metrics,
    readiness: readiness ?? new Readiness(checks, logger, { cacheMs: 0 }),
    serviceNames: ["tawsil.test.v1.TestService"],
  });
  return { server, lines, metrics };
}

describe("rpc server", () => {
  it("answers the gRPC health protocol over Connect/HTTP2 and over gRPC", async () => {
    const { server } = await start([{ name: "database", check: async () => {} }]);
    const connect = createClient(Health, createConnectTransport({ baseUrl: server.url, httpVersion: "2" }));
    const grpc = createClient(Health, createGrpcTransport({ baseUrl: server.url }));
    expect((await connect.check({ service: "" })).status).toBe(Status.SERVING);
    expect((await grpc.check({ service: "tawsil.test.v1.TestService" })).status).toBe(Status.SERVING);
    await expect(grpc.check({ service: "nope.v1.Nope" })).rejects.toMatchObject({ code: Code.NotFound });
  });

  it("keeps health probes out of the RPC metrics, which the error-rate and latency alerts read", async () => {
    const { server, metrics } = await start([]);
    const client = createClient(Health, createConnectTransport({ baseUrl: server.url, httpVersion: "2" }));
    expect((await client.check({ service: "" })).status).toBe(Status.SERVING);
    // The registry the metrics port serves (service.test.ts): the RPC port serves no /metrics.
    const text = await metrics.registry.metrics();
    expect(text).toContain("process_cpu_user_seconds_total");
    expect(text).not.toContain("grpc.health.v1.Health");
  });

  it("serves /healthz and /readyz over HTTP/1.1 on the same port, and not /metrics", async () => {
    let databaseUp = true;
    const { server } = await start([
      { name: "database", check: async () => void (databaseUp || (() => { throw new Error("connection refused 10.0.0.5:5432"); })()) },
      { name: "kafka", check: async () => {} },
    ]);
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: "ok" });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: "up", kafka: "up" } });

    databaseUp = false;
    const notReady = await fetch(`${server.url}/readyz`);
    const text = await notReady.text();
    expect(notReady.status).toBe(503);
    expect(JSON.parse(text)).toEqual({ status: "not_ready", checks: { database: "down", kafka: "up" } });
    expect(text).not.toContain("10.0.0.5");

    // Metrics have a port of their own (service.test.ts): whoever may call the service cannot read them.
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });

  it("reports a check that hangs as down once its deadline passes", async () => {
    const { logger } = capturedLogger();
    const readiness = new Readiness([{ name: "kafka", check: () => new Promise(() => {}) }], logger, { timeoutMs: 50, cacheMs: 0 });
    expect(await readiness.report()).toEqual({ ready: false, checks: { kafka: "down" } });
  });

  it("turns an unexpected error into a bare Internal error, logged with the caller's trace id", async () => {
    const failing = { report: async () => { throw new Error("SELECT secret FROM clients at 10.1.2.3"); } } as unknown as Readiness;
    const { server, lines } = await start([], failing);
    const client = createClient(Health, createConnectTransport({ baseUrl: server.url, httpVersion: "2" }));
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const requestId = "0b6f9a3c-8d4e-4f3a-9c1b-2a7e5d6f8e90";
    const error = await client
      .check({ service: "" }, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, "x-request-id": requestId } })
      .then(
        () => { throw new Error("expected the call to fail"); },
        (e: unknown) => ConnectError.from(e),
      );
    expect(error.code).toBe(Code.Internal);
    expect(error.rawMessage).toBe("internal error");
    expect(error.metadata.get("x-request-id")).toBe(requestId);
    const logged = lines.find((l) => l.message === "unhandled error in RPC handler");
    expect(logged).toMatchObject({ traceId, procedure: "grpc.health.v1.Health/Check" });
  });

  it("lets an in-flight request finish when closing", async () => {
    let release: (() => void) | undefined;
    const slow = { report: () => new Promise((resolve) => (release = () => resolve({ ready: true, checks: {} })) ) } as unknown as Readiness;
    const { server } = await start([], slow);
    const client = createClient(Health, createConnectTransport({ baseUrl: server.url, httpVersion: "2" }));
    const pending = client.check({ service: "" });
    // Closes once the handler is serving the request: a fixed pause was too short on a loaded machine.
    await expect.poll(() => release, { timeout: 10_000 }).toBeDefined();
    const closing = server.close(5000);
    release?.();
    expect((await pending).status).toBe(Status.SERVING);
    await closing;
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
