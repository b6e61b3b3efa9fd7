import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { correlate } from "../request/correlation";
import { PROBLEMS } from "./catalogue";
import { problemFromConnect } from "./from-connect";
import type { ParameterisedPaths } from "../routes/parameterised-paths";
import { NO_RESOURCE, problemFromFastify } from "./framework-errors";
import { ProblemError } from "./problem-error";
import { sendProblem } from "./render";

export interface ProblemSettings {
  readonly baseUrl: string;
  readonly bodyLimitBytes: number;
}

/**
 * The gateway's one error edge: every failure, from fastify's own parsing to an unexpected bug,
 * leaves as a problem+json. Unexpected errors are logged and answered as a bare 500; their
 * messages (SQL, hosts, stack frames) never reach the merchant.
 */
export function registerProblemHandlers(app: FastifyInstance, settings: ProblemSettings): void {
  const { baseUrl } = settings;
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, new ProblemError("RESOURCE_NOT_FOUND", NO_RESOURCE), baseUrl),
  );
  app.setErrorHandler((error: FastifyError | ProblemError, request, reply) => {
    if (error instanceof ProblemError) return sendProblem(request, reply, error, baseUrl);
    const known = problemFromConnect(error) ?? problemFromFastify(error, settings.bodyLimitBytes);
    if (known?.code === "PAYLOAD_TOO_LARGE") drainDeclaredBody(request, reply);
    if (known) {
      // An outage answered 503/504 is expected, not a bug, but an SRE (or a failed test's report)
      // looking up the request id must find which peer failed and how.
      if (PROBLEMS[known.code].status >= 500) request.log.warn({ err: error, problem: known.code }, "answered with an outage problem");
      return sendProblem(request, reply, known, baseUrl);
    }
    request.log.error({ err: error }, "unhandled error");
    return sendProblem(request, reply, new ProblemError("INTERNAL_ERROR"), baseUrl);
  });
}

/** The most of a refused body the gateway reads to discard it (the largest body a route takes is 10 MiB). */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Fastify refuses a body whose declared length is over the limit before reading it, and closes the
 * connection after its 413 as the client is still sending. A client that writes its whole body
 * before it reads (undici, Node's fetch) can then fail with EPIPE or a reset instead of reading the
 * problem: the fuzzer saw it once, in a loaded run. Up to DRAIN_LIMIT_BYTES declared, the
 * connection stays: Node reads the rest of the body and drops it (as for any body a handler did
 * not read), and the client reads its 413. A body of no declared length, or a larger one, is still
 * refused on a closed connection.
 */
function drainDeclaredBody(request: FastifyRequest, reply: FastifyReply): void {
  const declared = Number(request.headers["content-length"]);
  if (request.headers["transfer-encoding"] === undefined && Number.isSafeInteger(declared) && declared <= DRAIN_LIMIT_BYTES) reply.removeHeader("connection");
}

/**
 * Fastify's `frameworkErrors` option: the router's refusals (a path segment over maxParamLength,
 * one that does not percent-decode) happen before any hook runs, so the request is correlated here.
 */
export function frameworkErrorHandler(settings: ProblemSettings, parameterised: ParameterisedPaths) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    correlate(request, reply);
    const problem = problemFromFastify(error, settings.bodyLimitBytes, () => parameterised.matches(request.raw.url ?? "")) ?? new ProblemError("INTERNAL_ERROR");
    if (problem.code === "INTERNAL_ERROR") request.log.error({ err: error }, "unhandled framework error");
    void sendProblem(request, reply, problem, settings.baseUrl);
  };
}
