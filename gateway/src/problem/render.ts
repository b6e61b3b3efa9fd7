import { currentTraceId } from "@tawsil/logging";
import type { FastifyReply, FastifyRequest } from "fastify";
import { PROBLEMS, type ProblemCode } from "./catalogue";
import type { ProblemError } from "./problem-error";
import { languageOf } from "../request/language";

const MAX_VIOLATIONS = 20;

/** `code` in kebab-case: the slug of the problem type URI. */
function slug(code: ProblemCode): string {
  return code.toLowerCase().replaceAll("_", "-");
}

/**
 * Writes an RFC 9457 problem: the contract's required members (type, title, status, code,
 * timestamp, correlationId, requestId) plus instance, traceId, and detail and violations when the
 * problem has them, in the caller's language.
 */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: ProblemError, baseUrl: string): FastifyReply {
  const kind = PROBLEMS[problem.code];
  const lang = languageOf(request);
  const body: Record<string, unknown> = {
    type: `${baseUrl}/problems/${slug(problem.code)}`,
    title: kind.title[lang],
    status: kind.status,
    code: problem.code,
    instance: request.url.split("?", 1)[0],
    timestamp: new Date().toISOString(),
    correlationId: request.correlationId,
    requestId: request.id,
  };
  const traceId = currentTraceId();
  if (traceId) body.traceId = traceId;
  if (problem.detail) body.detail = problem.detail[lang];
  if (problem.extra.violations) {
    body.violations = problem.extra.violations.slice(0, MAX_VIOLATIONS).map((v) => ({ field: v.field, code: v.code, message: v.message[lang] }));
  }
  if (problem.extra.headers) void reply.headers(problem.extra.headers);
  // Sent as bytes: for a string fastify would append "; charset=utf-8" to the problem media type.
  return reply
    .code(kind.status)
    .header("content-type", "application/problem+json")
    .header("content-language", lang)
    .send(Buffer.from(JSON.stringify(body)));
}
