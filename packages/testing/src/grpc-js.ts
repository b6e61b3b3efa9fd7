/**
 * Our services as another team sees them: @grpc/grpc-js over plain gRPC on HTTP/2 cleartext, with
 * its stubs built at run time by @grpc/proto-loader from the .proto files under proto/ (never our
 * generated TypeScript), the way a team in any language starts from our protos alone.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import protobuf from "protobufjs";

export { status as GrpcStatus, Metadata, type Client as GrpcClient } from "@grpc/grpc-js";

/** The repository's proto/ folder: every import of our protos resolves from here, as with buf. */
export const PROTO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "proto");

/** proto-loader's usual options: camelCase fields, 64-bit integers and enums as strings, defaults present. */
const LOADER_OPTIONS: protoLoader.Options = { longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [PROTO_ROOT] };

type Callback = (error: grpc.ServiceError | null, response?: unknown) => void;
type UnaryMethod = (request: object, metadata: grpc.Metadata, options: grpc.CallOptions, callback: Callback) => grpc.ClientUnaryCall;

/** A grpc-js client of one service, built from its .proto file (relative to proto/). */
export function grpcJsClient(url: string, protoFile: string, serviceName: string): grpc.Client {
  const definition = grpc.loadPackageDefinition(protoLoader.loadSync(protoFile, LOADER_OPTIONS));
  const Client = serviceName.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], definition);
  if (typeof Client !== "function") throw new Error(`${serviceName} is not a service of ${protoFile}`);
  const ClientClass = Client as grpc.ServiceClientConstructor;
  return new ClientClass(new URL(url).host, grpc.credentials.createInsecure());
}

/** The grpc.health.v1 client, from the protocol's own vendored health.proto. */
export function grpcJsHealthClient(url: string): grpc.Client {
  return grpcJsClient(url, "grpc/health/v1/health.proto", "grpc.health.v1.Health");
}

export interface CallerIdentity {
  /** Our request id (a uuid), echoed by the service as the x-request-id response header. */
  readonly requestId: string;
  /** A W3C trace id (32 lowercase hex), sent in a sampled traceparent. */
  readonly traceId: string;
}

/**
 * Everything our grpc-js callers attach to a call, in one place: the request id and the W3C trace
 * context. A service token (when callees require one) is one more line here.
 */
export function callerMetadata(caller: CallerIdentity): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set("x-request-id", caller.requestId);
  metadata.set("traceparent", `00-${caller.traceId}-00f067aa0ba902b7-01`);
  return metadata;
}

export interface UnaryOutcome {
  /** The response message, or undefined when the call failed. */
  readonly response: Record<string, unknown> | undefined;
  /** The server's initial metadata (its response headers). */
  readonly headers: grpc.Metadata;
  /** The status: code (grpc-js's numeric status), message and trailers. */
  readonly status: grpc.StatusObject;
}

/**
 * One unary call with a deadline `deadlineMs` from now. Resolves with its outcome whether the call
 * succeeded or failed, so a test asserts the status grpc-js reports exactly.
 */
export function callUnary(client: grpc.Client, method: string, request: object, opts: { metadata?: grpc.Metadata; deadlineMs: number }): Promise<UnaryOutcome> {
  const fn = (client as unknown as Record<string, UnaryMethod | undefined>)[method];
  if (typeof fn !== "function") throw new Error(`no unary method ${method} on this client`);
  return new Promise((resolve) => {
    let headers = new grpc.Metadata();
    let response: Record<string, unknown> | undefined;
    const call = fn.call(client, request, opts.metadata ?? new grpc.Metadata(), { deadline: Date.now() + opts.deadlineMs }, (_error, value) => {
      response = value as Record<string, unknown> | undefined;
    });
    call.on("metadata", (m: grpc.Metadata) => (headers = m));
    // 'status' comes last, after the callback, for successes and failures alike.
    call.on("status", (status: grpc.StatusObject) => resolve({ response, headers, status }));
  });
}

/** What a server-streaming call yielded before it ended, and how it ended. */
export function callServerStream(client: grpc.Client, method: string, request: object, opts: { metadata?: grpc.Metadata; deadlineMs: number }): Promise<{ messages: Record<string, unknown>[]; status: grpc.StatusObject }> {
  const fn = (client as unknown as Record<string, ((req: object, md: grpc.Metadata, o: grpc.CallOptions) => grpc.ClientReadableStream<unknown>) | undefined>)[method];
  if (typeof fn !== "function") throw new Error(`no streaming method ${method} on this client`);
  return new Promise((resolve) => {
    const messages: Record<string, unknown>[] = [];
    const call = fn.call(client, request, opts.metadata ?? new grpc.Metadata(), { deadline: Date.now() + opts.deadlineMs });
    call.on("data", (message: Record<string, unknown>) => messages.push(message));
    // A failed stream also emits 'error'; the status says everything a test needs.
    call.on("error", () => {});
    call.on("status", (status: grpc.StatusObject) => resolve({ messages, status }));
  });
}

/**
 * google.rpc.Status as googleapis defines it, which grpc-status-details-bin carries. Any's two
 * fields are declared beside it (wire-identical to google.protobuf.Any), so nothing is fetched.
 */
const STATUS_ROOT = protobuf.parse(`
  syntax = "proto3";
  package google.rpc;
  message Status { int32 code = 1; string message = 2; repeated Any details = 3; }
  message Any { string type_url = 1; bytes value = 2; }
`).root;
const Status = STATUS_ROOT.lookupType("google.rpc.Status");

/** The files that declare our typed error details: the common ones and webhook's RotationLimited. */
const DETAIL_FILES = ["tawsil/common/v1/error_detail.proto", "tawsil/webhook/v1/webhook_service.proto"];

/** Our detail messages, loaded from their .proto like any other team would (well-known types are protobufjs's own). */
const detailRoot = (() => {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith("google/protobuf/") ? target : path.join(PROTO_ROOT, target));
  return root.loadSync(DETAIL_FILES);
})();

export interface DecodedStatus {
  readonly code: number;
  readonly message: string;
  /** Each typed detail: its full type name and its fields (camelCase). */
  readonly details: { type: string; value: Record<string, unknown> }[];
}

/** The grpc-status-details-bin trailer decoded as a stock client decodes it; undefined when absent. */
export function statusDetails(metadata: grpc.Metadata): DecodedStatus | undefined {
  const [bin] = metadata.get("grpc-status-details-bin");
  if (bin === undefined) return undefined;
  const decoded = Status.toObject(Status.decode(bin as Buffer), { defaults: true }) as { code: number; message: string; details: { typeUrl: string; value: Uint8Array }[] };
  return {
    code: decoded.code,
    message: decoded.message,
    details: decoded.details.map(({ typeUrl, value }) => {
      const type = typeUrl.slice(typeUrl.lastIndexOf("/") + 1);
      const message = detailRoot.lookupType(type);
      return { type, value: message.toObject(message.decode(value), { defaults: true }) };
    }),
  };
}

/**
 * How long a Watch in healthOverGrpcJs lasts before the caller's deadline ends it: long enough for
 * its first answer to arrive on a loaded machine (300 ms was not, at a load of 60 on 2 cores).
 */
const WATCH_DEADLINE_MS = 2000;
/** A Check's deadline in these tests: generous for the same reason (the kubelet's is the probe's timeoutSeconds). */
const CHECK_DEADLINE_MS = 10_000;

/** A fresh request id and trace id, for callerMetadata. */
export function newCaller(): CallerIdentity {
  return { requestId: randomUUID(), traceId: randomUUID().replaceAll("-", "") };
}

/** A service name no process serves, for the health protocol's NOT_FOUND. */
export const UNKNOWN_SERVICE = "tawsil.unknown.v1.UnknownService";

/**
 * grpc.health.v1 Check for each name, as a probe or a load balancer asks it: the serving status,
 * or the name of the gRPC status a refused check ended with (NOT_FOUND for an unknown service).
 */
export async function healthStatuses(url: string, services: readonly string[]): Promise<Record<string, string>> {
  const client = grpcJsHealthClient(url);
  try {
    const answers = await Promise.all(
      services.map(async (service) => {
        const { response, status } = await callUnary(client, "Check", { service }, { deadlineMs: CHECK_DEADLINE_MS });
        return [service, status.code === grpc.status.OK ? String(response?.status) : grpc.status[status.code]] as const;
      }),
    );
    return Object.fromEntries(answers);
  } finally {
    client.close();
  }
}

/**
 * The health protocol as a stock client and Kubernetes' gRPC probes ask it: Check for each name
 * in `checked`, UNKNOWN_SERVICE included, and a Watch of the whole server that the caller's
 * deadline ends (the status it ended with, by name).
 */
export async function healthOverGrpcJs(url: string, checked: readonly string[]): Promise<{ checks: Record<string, string>; watch: { messages: Record<string, unknown>[]; status: string | undefined } }> {
  const checks = await healthStatuses(url, [...checked, UNKNOWN_SERVICE]);
  const client = grpcJsHealthClient(url);
  try {
    const watched = await callServerStream(client, "Watch", { service: "" }, { deadlineMs: WATCH_DEADLINE_MS });
    return { checks, watch: { messages: watched.messages, status: grpc.status[watched.status.code] } };
  } finally {
    client.close();
  }
}

/** Our ErrorReason detail as failureOf decodes it. */
export const errorReason = (reason: string) => ({ type: "tawsil.common.v1.ErrorReason", value: { reason } });

/** How a failed call reads to a stock client: status name, message and decoded typed details. */
export function failureOf(outcome: UnaryOutcome): { status: string; message: string; details: DecodedStatus["details"] } {
  if (outcome.status.code === grpc.status.OK) throw new Error("expected the call to fail");
  return { status: grpc.status[outcome.status.code] ?? String(outcome.status.code), message: outcome.status.details, details: statusDetails(outcome.status.metadata)?.details ?? [] };
}
