import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { createLogger, initTracing } from "@tawsil/logging";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { TrackingService } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import { createMetrics, Readiness, startRpcServer, type RpcServer } from "@tawsil/rpc";
import { problemSchemaErrors } from "@tawsil/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway } from "../src/app";
import { DRAIN_LIMIT_BYTES } from "../src/problem/error-handler";
import { readConfig, SERVICES, type ServiceName } from "../src/config";

initTracing();
const logger = createLogger({ service: "gateway-test", level: "silent" });
/** What the gateway under test logs at warn and above, one JSON line each. */
const gatewayLines: string[] = [];
const gatewayLogger = createLogger({ service: "gateway-test", level: "warn", destination: { write: (line: string) => void gatewayLines.push(line) } });

/**
 * Real RPC servers standing in for the six services, each with a switchable readiness. The merchant
 * stand-in publishes an (empty) key set; the tracking one knows no link, so a public read is a 404
 * while it is up.
 */
const ready = Object.fromEntries(SERVICES.map((name) => [name, true])) as Record<ServiceName, boolean>;
const peers = {} as Record<ServiceName, RpcServer>;
let gateway: FastifyInstance;
let base: string;
const CODE = "A".repeat(43);

function gatewayConfig(urls: Record<ServiceName, string>) {
  return readConfig({
    PORT: "0",
    PUBLIC_BASE_URL: "https://api.tawsil.test",
    // Required; buildGateway alone starts no revocation feed (main.ts does).
    KAFKA_BROKERS: "127.0.0.1:9092",
    PEER_HEALTH_INTERVAL_MS: "100",
    ...Object.fromEntries(SERVICES.map((name) => [`${name.toUpperCase()}_SERVICE_URL`, urls[name]])),
  });
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  for (const name of SERVICES) {
    const checks = [{ name: "database", check: async () => { if (!ready[name]) throw new Error("down"); } }];
    peers[name] = await startRpcServer({
      host: "127.0.0.1",
      port: 0,
      logger,
      metrics: createMetrics(name),
      readiness: new Readiness(checks, logger, { cacheMs: 0 }),
      routes: (router) => {
        if (name === "merchant") router.service(MerchantService, { listSigningKeys: async () => ({ keys: [] }) });
        if (name === "tracking") {
          router.service(TrackingService, {
            getPublicTracking: async () => {
              throw new ConnectError("no such link", Code.NotFound, undefined, [{ desc: ErrorReasonSchema, value: { reason: "TRACKING_LINK_NOT_FOUND" } }]);
            },
          });
        }
      },
    });
  }
  const urls = Object.fromEntries(SERVICES.map((name) => [name, peers[name].url])) as Record<ServiceName, string>;
  gateway = buildGateway({ config: gatewayConfig(urls), logger: gatewayLogger, registry: createMetrics("gateway").registry });
  // A route of the real app that only echoes, to exercise body parsing before any /v2 route has a body.
  gateway.post("/test/echo", async (request) => request.body);
  base = await listen(gateway);
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all(Object.values(peers).map((p) => p.close(100)));
});

interface ReadyBody {
  status: string;
  checks: Record<string, string>;
  services: Record<string, string>;
}

async function readyz(at = base): Promise<{ status: number; body: ReadyBody }> {
  const res = await fetch(`${at}/readyz`);
  return { status: res.status, body: (await res.json()) as ReadyBody };
}

/** Waits (bounded) until the gateway's view of a service is `status`. */
async function untilService(name: ServiceName, status: string): Promise<void> {
  await expect.poll(async () => (await readyz()).body.services[name], { timeout: 5_000, interval: 50 }).toBe(status);
}

describe("gateway /readyz", () => {
  it("is ready once it holds the signing keys, and lists what it knows of every service", async () => {
    for (const name of SERVICES) await untilService(name, "up");
    expect(await readyz()).toEqual({
      status: 200,
      body: { status: "ready", checks: { signingKeys: "up" }, services: Object.fromEntries(SERVICES.map((name) => [name, "up"])) },
    });
  });

  it("is not ready while the issuer has never answered: no token could be verified", async () => {
    const refused = "http://127.0.0.1:9";
    const urls = Object.fromEntries(SERVICES.map((name) => [name, name === "merchant" ? refused : peers[name].url])) as Record<ServiceName, string>;
    const alone = buildGateway({ config: gatewayConfig(urls), logger, registry: createMetrics("gateway").registry });
    try {
      const { status, body } = await readyz(await listen(alone));
      expect(status).toBe(503);
      expect(body).toMatchObject({ status: "not_ready", checks: { signingKeys: "down" } });
    } finally {
      await alone.close();
    }
  });
});

describe("a service that is down fails only the routes that call it", () => {
  const publicRead = () => fetch(`${base}/v2/public/tracking/${CODE}`);

  it("answers 503 SERVICE_UNAVAILABLE with Retry-After while tracking is not ready, stays ready, and recovers", async () => {
    expect((await publicRead()).status).toBe(404);
    ready.tracking = false;
    try {
      await untilService("tracking", "down");
      const res = await publicRead();
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("2");
      const problem = (await res.json()) as Record<string, unknown>;
      expect(problemSchemaErrors(problem)).toEqual([]);
      expect(problem).toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE" });
      // The gateway's log names the request and why, for the SRE (or the failed test) that looks it up.
      const requestId = res.headers.get("x-request-id")!;
      const logged = JSON.parse(gatewayLines.find((line) => line.includes(requestId)) ?? "{}") as { level?: string; problem?: string; err?: { message?: string } };
      expect(logged).toMatchObject({ level: "warn", problem: "SERVICE_UNAVAILABLE", err: { message: "[unavailable] tracking is unavailable" } });
      // The customer page says the same as a page, with the same hint.
      const page = await fetch(`${base}/t/${CODE}`);
      expect(page.status).toBe(503);
      expect(page.headers.get("retry-after")).toBe("2");
      // The gateway itself is still ready, and routes on other services still answer.
      expect((await readyz()).status).toBe(200);
      expect((await fetch(`${base}/.well-known/jwks.json`)).status).toBe(200);
    } finally {
      ready.tracking = true;
    }
    await untilService("tracking", "up");
    expect((await publicRead()).status).toBe(404);
  });

  it("stays ready when a service stops answering, the issuer included once its keys are held", async () => {
    await peers.merchant.close(0);
    await untilService("merchant", "down");
    const { status, body } = await readyz();
    expect(status).toBe(200);
    expect(body.checks).toEqual({ signingKeys: "up" });
    expect(body.services).toMatchObject({ merchant: "down", tracking: "up" });
    expect((await fetch(`${base}/v2/public/tracking/${CODE}`)).status).toBe(404);
  });
});

describe("the gateway's connections", () => {
  it("stay open 72 s when idle, as fastify's own server would, outliving the ingress's 60 s upstream keep-alive (Node's 5 s default reset reused connections)", async () => {
    const agent = new http.Agent({ keepAlive: true });
    try {
      const keepAlive = await new Promise<string | string[] | undefined>((resolve, reject) => {
        http.get(`${base}/readyz`, { agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.headers["keep-alive"]));
        }).on("error", reject);
      });
      expect(keepAlive).toBe("timeout=72");
    } finally {
      agent.destroy();
    }
  });
});

describe("gateway problems", () => {
  it("answers an unknown route with a 404 problem carrying request, correlation and trace ids", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const correlationId = "6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e";
    const res = await fetch(`${base}/v2/external/nothing-here?x=1`, {
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01`, "x-correlation-id": correlationId },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("content-language")).toBe("en");
    const body = (await res.json()) as Record<string, unknown>;
    expect(problemSchemaErrors(body)).toEqual([]);
    expect(body).toMatchObject({
      type: "https://api.tawsil.test/problems/resource-not-found",
      status: 404,
      code: "RESOURCE_NOT_FOUND",
      title: "Resource not found",
      instance: "/v2/external/nothing-here",
      correlationId,
      traceId,
    });
    expect(res.headers.get("x-request-id")).toBe(body.requestId);
    expect(res.headers.get("x-correlation-id")).toBe(correlationId);
  });

  it("starts a new trace and correlation id when the caller sends none or an invalid one", async () => {
    const res = await fetch(`${base}/nope`, { headers: { "x-correlation-id": "not-a-uuid" } });
    const body = (await res.json()) as Record<string, string>;
    expect(problemSchemaErrors(body)).toEqual([]);
    expect(body.correlationId).not.toBe("not-a-uuid");
    expect(body.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("speaks Arabic when asked, codes untouched", async () => {
    const res = await fetch(`${base}/nope`, { headers: { "accept-language": "ar-SA, en;q=0.5" } });
    expect(res.headers.get("content-language")).toBe("ar");
    const body = (await res.json()) as Record<string, string>;
    expect(problemSchemaErrors(body)).toEqual([]);
    expect(body.code).toBe("RESOURCE_NOT_FOUND");
    expect(body.title).toBe("المورد غير موجود");
  });

  it("rejects an Accept-Language over 64 characters with 400 INVALID_PARAMETER", async () => {
    const res = await fetch(`${base}/healthz`, { headers: { "accept-language": "en-GB,".repeat(11) } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as Record<string, string>;
    expect(problemSchemaErrors(body)).toEqual([]);
    expect(body.code).toBe("INVALID_PARAMETER");
  });
});

describe("gateway request bodies", () => {
  const post = (contentType: string, body: string) => fetch(`${base}/test/echo`, { method: "POST", headers: { "content-type": contentType }, body });
  const problemOf = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const body = (await res.json()) as Record<string, unknown>;
    expect(problemSchemaErrors(body)).toEqual([]);
    expect(body.code).toBe(code);
  };

  it("reads JSON", async () => {
    const res = await post("application/json; charset=utf-8", '{"a":[1,2]}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ a: [1, 2] });
  });

  it("answers unparsable JSON with 400 MALFORMED_REQUEST", async () => {
    await problemOf(await post("application/json", '{"a":'), 400, "MALFORMED_REQUEST");
    await problemOf(await post("application/json", '{"__proto__":{"x":1}}'), 400, "MALFORMED_REQUEST");
  });

  it("answers other media types with 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    await problemOf(await post("text/plain", "hello"), 415, "UNSUPPORTED_MEDIA_TYPE");
    await problemOf(await post("application/x-www-form-urlencoded", "a=1"), 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("answers a body over 256 KiB with 413 PAYLOAD_TOO_LARGE", async () => {
    await problemOf(await post("application/json", JSON.stringify({ pad: "x".repeat(256 * 1024) })), 413, "PAYLOAD_TOO_LARGE");
  });

  /** A raw HTTP/1.1 connection to the gateway that declares an oversized JSON body and sends its first bytes only. */
  async function oversizedPost(length: number) {
    const socket = net.connect(Number(new URL(base).port), "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const until = async (done: () => boolean) => {
      for (let i = 0; i < 300 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
    };
    socket.write(`POST /test/echo HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"pad":"`);
    await until(() => received.includes("\r\n\r\n"));
    return { socket, received: () => received, closed, until };
  }

  it("keeps the connection after a 413 of a declared length it can drain, so a client still sending reads the problem", async () => {
    // Fastify answers before reading the body; the client sends the rest, then another request on the same connection.
    const length = 1_000_000;
    const post = await oversizedPost(length);
    expect(post.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(post.received().toLowerCase()).not.toContain("connection: close");
    post.socket.write("x".repeat(length - 8));
    post.socket.write("GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n");
    await post.until(() => (post.received().match(/HTTP\/1\.1 \d+/g) ?? []).length === 2);
    expect(post.received().match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 413", "HTTP/1.1 200"]);
    post.socket.end();
    await post.closed;
  });

  it("closes the connection after a 413 of a declared length too large to drain", async () => {
    const post = await oversizedPost(DRAIN_LIMIT_BYTES + 1);
    expect(post.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(post.received().toLowerCase()).toContain("connection: close");
    await post.closed;
  });
});
