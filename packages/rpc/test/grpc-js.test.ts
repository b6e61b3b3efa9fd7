/**
 * The server every service runs (startRpcServer), called by a stock @grpc/grpc-js client: each of
 * the 16 Connect codes arrives as the same numeric gRPC status with its message and its typed
 * details in grpc-status-details-bin; what is not a ConnectError leaves as a bare INTERNAL; the
 * caller's deadline, request id and trace context reach the handler; and the health protocol
 * answers what Kubernetes' gRPC probes ask.
 */
import http2 from "node:http2";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { currentTraceId, initTracing } from "@tawsil/logging";
import { ErrorReasonSchema, FieldViolationsSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { capturedLogger } from "@tawsil/testing";
import { callerMetadata, callServerStream, callUnary, grpcJsClient, grpcJsHealthClient, GrpcStatus, newCaller, statusDetails, type GrpcClient } from "@tawsil/testing/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics, currentRequestId, LIVENESS_SERVICE, Readiness, startRpcServer, type RpcServer } from "../src/index";

initTracing();

/** What the test handler saw of the call it served last. */
const seen: { requestId?: string | undefined; traceId?: string | undefined; aborted?: boolean } = {};
let databaseUp = true;
let server: RpcServer;
let client: GrpcClient;
let health: GrpcClient;
let logLines: string[];

/** Reserved URI characters, "%" and non-ASCII: what percent-encoding of grpc-message must carry intact. */
const messageOf = (name: string) => `failed with ${name}: 100% sure; see /docs?a=b&c=d, #1 (Riyadh, الرياض)`;

/** The server's bound on deadlines, short here so that the test of a longer deadline ends soon. */
const MAX_TIMEOUT_MS = 5000;

const CONNECT_CODES = Object.values(Code).filter((c): c is Code => typeof c === "number");

/**
 * A test-only implementation of a real service of ours (PricingService, whose proto grpc-js loads):
 * merchant_id names the Connect code to fail with; "HANG" waits for the deadline; "BUG" throws a
 * plain error holding what must never reach a caller; anything else answers.
 */
function routes(router: Parameters<NonNullable<Parameters<typeof startRpcServer>[0]["routes"]>>[0]): void {
  router.service(PricingService, {
    async quoteDelivery(req, ctx) {
      Object.assign(seen, { requestId: currentRequestId(), traceId: currentTraceId(), aborted: false });
      if (req.merchantId === "HANG") {
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        seen.aborted = true;
        throw ConnectError.from(ctx.signal.reason);
      }
      if (req.merchantId === "BUG") throw new Error("SELECT secret FROM clients at 10.1.2.3");
      const code = Code[req.merchantId as keyof typeof Code] as Code | undefined;
      if (code === undefined) return { rateCardId: "rate-card-1", rateCardVersion: 3 };
      const details = [{ desc: ErrorReasonSchema, value: { reason: `REASON_${req.merchantId}` } }];
      if (code === Code.InvalidArgument) details.push({ desc: FieldViolationsSchema, value: { violations: [{ field: "pickup", code: "OUT_OF_COVERAGE", params: { city: "RUH" } }] } } as never);
      throw new ConnectError(messageOf(req.merchantId), code, undefined, details);
    },
  });
}

beforeAll(async () => {
  const captured = capturedLogger("grpc-js-test");
  logLines = captured.lines;
  const readiness = new Readiness([{ name: "database", check: async () => { if (!databaseUp) throw new Error("down"); } }], captured.logger, { cacheMs: 0 });
  server = await startRpcServer({ host: "127.0.0.1", port: 0, logger: captured.logger, metrics: createMetrics("grpc-js-test"), readiness, routes, serviceNames: [PricingService.typeName], maxTimeoutMs: MAX_TIMEOUT_MS });
  client = grpcJsClient(server.url, "tawsil/pricing/v1/pricing_service.proto", PricingService.typeName);
  health = grpcJsHealthClient(server.url);
});

afterAll(async () => {
  client?.close();
  health?.close();
  await server?.close(100);
});

describe("a grpc-js client of our RPC server", () => {
  it.each(CONNECT_CODES.map((code) => [Code[code], code] as const))("receives %s as gRPC status %i with its message, reason and request id", async (name, code) => {
    const who = newCaller();
    const { response, status } = await callUnary(client, "QuoteDelivery", { merchantId: name }, { metadata: callerMetadata(who), deadlineMs: 5000 });
    expect(response).toBeUndefined();
    // Connect's codes are gRPC's, number for number: grpc-js's own table names the same status.
    expect({ code: status.code, details: status.details }).toEqual({ code, details: messageOf(name) });
    expect(GrpcStatus[status.code]).toBe(name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase().replace("CANCELED", "CANCELLED"));
    expect(status.metadata.get("x-request-id")).toEqual([who.requestId]);
    const decoded = statusDetails(status.metadata);
    expect(decoded).toMatchObject({ code, message: messageOf(name) });
    expect(decoded?.details[0]).toEqual({ type: "tawsil.common.v1.ErrorReason", value: { reason: `REASON_${name}` } });
    if (code === Code.InvalidArgument) {
      expect(decoded?.details[1]).toEqual({ type: "tawsil.common.v1.FieldViolations", value: { violations: [{ field: "pickup", code: "OUT_OF_COVERAGE", params: { city: "RUH" } }] } });
    } else {
      expect(decoded?.details).toHaveLength(1);
    }
  });

  it("sends a message that Connect's own gRPC client reads the same", async () => {
    const connect = createClient(PricingService, createGrpcTransport({ baseUrl: server.url }));
    const error = await connect.quoteDelivery({ merchantId: "FailedPrecondition" }).then(() => undefined, (e: unknown) => ConnectError.from(e));
    expect({ code: error?.code, message: error?.rawMessage }).toEqual({ code: Code.FailedPrecondition, message: messageOf("FailedPrecondition") });
  });

  it("covers every status grpc-js knows but OK", () => {
    const grpcCodes = Object.values(GrpcStatus).filter((c): c is number => typeof c === "number" && c !== GrpcStatus.OK);
    expect([...CONNECT_CODES].sort((a, b) => a - b)).toEqual(grpcCodes.sort((a, b) => a - b));
  });

  it("receives an unexpected error as a bare INTERNAL: no message of ours, no details, logged with its trace id", async () => {
    const who = newCaller();
    const { status } = await callUnary(client, "QuoteDelivery", { merchantId: "BUG" }, { metadata: callerMetadata(who), deadlineMs: 5000 });
    expect({ code: status.code, details: status.details }).toEqual({ code: GrpcStatus.INTERNAL, details: "internal error" });
    expect(statusDetails(status.metadata)?.details ?? []).toEqual([]);
    expect(JSON.stringify(status.metadata.toJSON())).not.toContain("10.1.2.3");
    const logged = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.message === "unhandled error in RPC handler" && l.traceId === who.traceId);
    expect(logged).toMatchObject({ procedure: "tawsil.pricing.v1.PricingService/QuoteDelivery" });
  });

  it("answers with the response, the request id echoed as a header, the caller's trace and request id in the handler's context", async () => {
    const who = newCaller();
    const { response, headers, status } = await callUnary(client, "QuoteDelivery", { merchantId: "ANSWER" }, { metadata: callerMetadata(who), deadlineMs: 5000 });
    expect(status.code).toBe(GrpcStatus.OK);
    expect(response).toMatchObject({ rateCardId: "rate-card-1", rateCardVersion: 3 });
    expect(headers.get("x-request-id")).toEqual([who.requestId]);
    expect(seen).toMatchObject({ requestId: who.requestId, traceId: who.traceId });
  });

  it("ends a call whose deadline expires with DEADLINE_EXCEEDED, the handler's signal aborted on the server", async () => {
    const started = Date.now();
    const { status } = await callUnary(client, "QuoteDelivery", { merchantId: "HANG" }, { metadata: callerMetadata(newCaller()), deadlineMs: 300 });
    expect(status.code).toBe(GrpcStatus.DEADLINE_EXCEEDED);
    // Ended at the deadline, not hung (the margin is for a loaded machine).
    expect(Date.now() - started).toBeLessThan(10_000);
    // The server enforces the deadline grpc-js sent (grpc-timeout), not only the client's timer.
    await expect.poll(() => seen.aborted, { timeout: 10_000 }).toBe(true);
  });

  it("shortens a deadline beyond the server's bound to the bound instead of refusing the call", async () => {
    const answered = await callUnary(client, "QuoteDelivery", { merchantId: "ANSWER" }, { deadlineMs: 60_000 });
    expect(answered.status.code).toBe(GrpcStatus.OK);
    const started = Date.now();
    const hung = await callUnary(client, "QuoteDelivery", { merchantId: "HANG" }, { deadlineMs: 60_000 });
    expect(hung.status.code).toBe(GrpcStatus.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeGreaterThanOrEqual(MAX_TIMEOUT_MS - 100);
    expect(Date.now() - started).toBeLessThan(MAX_TIMEOUT_MS + 5000);
  });
});

describe("the health protocol, as grpc-js and Kubernetes' gRPC probes ask it", () => {
  const check = async (service: string) => {
    const { response, status } = await callUnary(health, "Check", { service }, { deadlineMs: 10_000 });
    return status.code === GrpcStatus.OK ? response?.status : GrpcStatus[status.code];
  };

  it("answers the server, each service, liveness, and NOT_FOUND for a service it does not serve", async () => {
    expect(await check("")).toBe("SERVING");
    expect(await check(PricingService.typeName)).toBe("SERVING");
    expect(await check(LIVENESS_SERVICE)).toBe("SERVING");
    expect(await check("tawsil.nope.v1.NopeService")).toBe("NOT_FOUND");
  });

  it("reports readiness NOT_SERVING while a dependency is down, liveness SERVING all the same", async () => {
    try {
      databaseUp = false;
      expect(await check("")).toBe("NOT_SERVING");
      expect(await check(PricingService.typeName)).toBe("NOT_SERVING");
      expect(await check(LIVENESS_SERVICE)).toBe("SERVING");
    } finally {
      databaseUp = true;
    }
    expect(await check("")).toBe("SERVING");
  });

  it("streams Watch until the caller's deadline ends it, SERVICE_UNKNOWN for an unknown service", async () => {
    // Long enough for the first answer on a loaded machine; the deadline ends the stream all the same.
    const watched = await callServerStream(health, "Watch", { service: "" }, { deadlineMs: 2000 });
    expect(watched.messages).toEqual([{ status: "SERVING" }]);
    expect(watched.status.code).toBe(GrpcStatus.DEADLINE_EXCEEDED);
    const unknown = await callServerStream(health, "Watch", { service: "tawsil.nope.v1.NopeService" }, { deadlineMs: 2000 });
    expect(unknown.messages).toEqual([{ status: "SERVICE_UNKNOWN" }]);
  });

  it("ends a Watch whose deadline the server reaches first with DEADLINE_EXCEEDED, never OK", async () => {
    // No timer in the caller: only the server's, from grpc-timeout, can end the stream. (With a
    // stock client, whichever timer fires first decides: on a loaded machine it was the server's.)
    const session = http2.connect(server.url);
    try {
      const stream = session.request({ ":method": "POST", ":path": "/grpc.health.v1.Health/Watch", "content-type": "application/grpc", te: "trailers", "grpc-timeout": "300m" });
      // One gRPC frame: not compressed, a HealthCheckRequest of zero bytes (service "").
      stream.end(Buffer.alloc(5));
      const status = await new Promise<string | undefined>((resolve, reject) => {
        let fromHeaders: string | undefined;
        stream.on("response", (headers) => (fromHeaders = headers["grpc-status"] as string | undefined));
        stream.on("trailers", (trailers) => resolve(trailers["grpc-status"] as string | undefined));
        stream.on("end", () => resolve(fromHeaders));
        stream.on("error", reject);
        stream.resume();
      });
      expect(status).toBe(String(GrpcStatus.DEADLINE_EXCEEDED));
    } finally {
      session.close();
    }
  });
});
