import { METHODS } from "node:http";
import type { FastifyInstance, HTTPMethods, RouteHandlerMethod, onRequestAsyncHookHandler } from "fastify";
import { ProblemError } from "../problem/problem-error";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface Endpoint {
  /** Runs before the body is read: an anonymous caller gets 401 without costing a parse. */
  readonly onRequest?: onRequestAsyncHookHandler[];
  readonly handler: RouteHandlerMethod;
}

/**
 * Node parses methods fastify does not route by default (PROPFIND, QUERY, PURGE...); without them
 * such a request on an existing path would be a 404 rather than the 405 it is. CONNECT is Node's
 * tunnel request and never reaches a route.
 */
export function acceptEveryParsedMethod(app: FastifyInstance): void {
  for (const method of METHODS) {
    if (method !== "CONNECT" && !app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
  }
}

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
    method: app.supportedMethods.filter((m) => !allowed.includes(m as HTTPMethods)),
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
