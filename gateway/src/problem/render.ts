import { currentTraceId } from "@tawsil/logging";
import type { FastifyReply, FastifyRequest } from "fastify";
import { clip, PROBLEM_BOUNDS } from "./bounds";
import { PROBLEMS } from "./catalogue";
import { problemSlug } from "./page";
import type { ProblemError } from "./problem-error";
import { languageOf, type Language } from "../request/language";


const MAX_INSTANCE = 1024;

/**
 * The request path as the problem's instance, always a uri-reference: a stray `%` or a character
 * a URI may not hold (the path is the caller's raw input) is percent-encoded. Bounded, since a path
 * can be as long as the header limit allows; a cut drops a dangling partial escape.
 */
function instanceOf(url: string): string {
  const path = (url.split("?", 1)[0] ?? "")
    .replace(/%(?![0-9A-Fa-f]{2})/g, "%25")
    .replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/gu, (char) => encodeURIComponent(char));
  return path.length <= MAX_INSTANCE ? path : path.slice(0, MAX_INSTANCE).replace(/%[0-9A-Fa-f]?$/, "");
}

/** What a problem says about the request it answers. */
export interface ProblemContext {
  readonly baseUrl: string;
  readonly language: Language;
  /** The request's path and query; absent when the request line itself could not be read. */
  readonly url?: string;
  readonly requestId: string;
  readonly correlationId: string;
}

/**
 * The RFC 9457 body: the contract's required members (type, title, status, code, timestamp,
 * correlationId, requestId) plus instance, traceId, and detail and violations when the problem has
 * them, in the caller's language. Every text is cut to the contract's bounds here, the one place
 * problem bodies are made, whatever its source put in it.
 */
export function problemBody(problem: ProblemError, context: ProblemContext): Record<string, unknown> {
  const kind = PROBLEMS[problem.code];
  const lang = context.language;
  const body: Record<string, unknown> = {
    type: `${context.baseUrl}/problems/${problemSlug(problem.code)}`,
    title: clip(kind.title[lang], PROBLEM_BOUNDS.title),
    status: kind.status,
    code: problem.code,
    timestamp: new Date().toISOString(),
    correlationId: context.correlationId,
    requestId: context.requestId,
  };
  if (context.url !== undefined) body.instance = instanceOf(context.url);
  const traceId = currentTraceId();
  if (traceId) body.traceId = traceId;
  if (problem.detail) body.detail = clip(problem.detail[lang], PROBLEM_BOUNDS.detail);
  if (problem.extra.violations) {
    body.violations = problem.extra.violations
      .slice(0, PROBLEM_BOUNDS.violations)
      .map((v) => ({ field: clip(v.field, PROBLEM_BOUNDS.field), code: v.code, message: clip(v.message[lang], PROBLEM_BOUNDS.message) }));
  }
  return body;
}

/** Writes a problem as the answer to a request fastify has parsed. */
export function sendProblem(request: FastifyRequest, reply: FastifyReply, problem: ProblemError, baseUrl: string): FastifyReply {
  const language = languageOf(request);
  const body = problemBody(problem, { baseUrl, language, url: request.url, requestId: request.id, correlationId: request.correlationId });
  if (problem.extra.headers) void reply.headers(problem.extra.headers);
  // Sent as bytes: for a string fastify would append "; charset=utf-8" to the problem media type.
  return reply
    .code(PROBLEMS[problem.code].status)
    .header("content-type", "application/problem+json")
    .header("content-language", language)
    .send(Buffer.from(JSON.stringify(body)));
}
