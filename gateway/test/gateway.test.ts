import type { AddressInfo } from "node:net";
import { createLogger, initTracing } from "@tawsil/logging";
import { createMetrics, Readiness, startRpcServer, type RpcServer } from "@tawsil/rpc";
import { problemSchemaErrors } from "@tawsil/testing";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGateway } from "../src/app";
import { createPeers } from "../src/clients";
import { readConfig, SERVICES, type ServiceName } from "../src/config";
import { meshReadiness } from "../src/readiness";

initTracing();
const logger = createLogger({ service: "gateway-test", level: "silent" });

/** Real RPC servers standing in for the six services, with switchable dependency checks. */
const state = { database: true, kafka: true };
const peers: RpcServer[] = [];
let gateway: FastifyInstance;
let base: string;

beforeAll(async () => {
  const urls = {} as Record<ServiceName, string>;
  for (const name of SERVICES) {
    const checks = [
      { name: "database", check: async () => { if (!state.database) throw new Error("down"); } },
      ...(name === "merchant" || name === "pricing" ? [] : [{ name: "kafka", check: async () => { if (!state.kafka) throw new Error("down"); } }]),
    ];
    const server = await startRpcServer({ host: "127.0.0.1", port: 0, logger, metrics: createMetrics(name), readiness: new Readiness(checks, logger, { cacheMs: 0 }) });
    peers.push(server);
    urls[name] = server.url;
  }
  const config = readConfig({
    PORT: "0",
    PUBLIC_BASE_URL: "https://api.tawsil.test",
    // Required; buildGateway alone starts no revocation feed (main.ts does).
    KAFKA_BROKERS: "127.0.0.1:9092",
    ...Object.fromEntries(SERVICES.map((name) => [`${name.toUpperCase()}_SERVICE_URL`, urls[name]])),
  });
  gateway = buildGateway({ config, logger, peers: createPeers(config), readiness: meshReadiness(urls, 500, logger), registry: createMetrics("gateway").registry });
  // A route of the real app that only echoes, to exercise body parsing before any /v2 route has a body.
  gateway.post("/test/echo", async (request) => request.body);
  await gateway.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all(peers.map((p) => p.close(100)));
});

describe("gateway /readyz", () => {
  it("reports every service, PostgreSQL and Kafka", async () => {
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: "ready",
      services: { merchant: "up", shipment: "up", pricing: "up", dispatch: "up", tracking: "up", webhook: "up" },
      dependencies: { postgresql: "up", kafka: "up" },
    });
  });

  it("is 503 naming the broker when Kafka is down, and names a service that stops answering", async () => {
    state.kafka = false;
    try {
      const res = await fetch(`${base}/readyz`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { dependencies: Record<string, string>; services: Record<string, string> };
      expect(body.dependencies).toEqual({ postgresql: "up", kafka: "down" });
      expect(body.services.merchant).toBe("up");
      expect(body.services.shipment).toBe("down");
    } finally {
      state.kafka = true;
    }
    const stopped = peers[0]!;
    await stopped.close(0);
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { services: Record<string, string> }).services.merchant).toBe("down");
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
});
