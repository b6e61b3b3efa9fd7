import type { FastifyInstance, HTTPMethods, RouteHandlerMethod, onRequestAsyncHookHandler } from "fastify";
import { ProblemError } from "../problem/problem-error";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface Endpoint {
  /** Runs before the body is read: an anonymous caller gets 401 without costing a parse. */
  readonly onRequest?: onRequestAsyncHookHandler[];
  readonly handler: RouteHandlerMethod;
}

const ALL: readonly HTTPMethods[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * Registers the methods a path supports, and answers every other method on that path with
 * 405 METHOD_NOT_ALLOWED and an `Allow` header (RFC 9110 15.5.6) instead of a 404.
 */
export function resource(app: FastifyInstance, url: string, endpoints: Partial<Record<Method, Endpoint>>): void {
  const methods = Object.keys(endpoints) as Method[];
  for (const method of methods) {
    const endpoint = endpoints[method];
    if (endpoint) app.route({ method, url, handler: endpoint.handler, ...(endpoint.onRequest ? { onRequest: endpoint.onRequest } : {}) });
  }
  // fastify answers HEAD for every GET route itself.
  const allowed: HTTPMethods[] = methods.includes("GET") ? [...methods, "HEAD"] : [...methods];
  const allow = allowed.join(", ");
  app.route({
    method: ALL.filter((m) => !allowed.includes(m)),
    url,
    handler: async (request) => {
      throw new ProblemError(
        "METHOD_NOT_ALLOWED",
        { en: `${request.method} is not supported here; use ${allow}.`, ar: `الطريقة ${request.method} غير مدعومة هنا؛ استخدم ${allow}.` },
        { headers: { allow } },
      );
    },
  });
}
