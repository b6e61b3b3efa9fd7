import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { openApiJson, type ServedFile } from "./document";
import { rendererScript } from "./renderer";
import { resource } from "../routes/route-table";

const RENDERER_PATH = "/docs/redoc.standalone.js";

/**
 * Only our own origin; the renderer needs inline styles (styled-components writes <style> tags),
 * a blob: worker (its search index) and data: images; it fetches the document from 'self'.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The document and its reference page are written in English only: they say so, whatever language
 * the caller asked for (problems, which are localized, still answer in the caller's language).
 */
const DOCUMENT_LANGUAGE = "en";

/** No inline script: Redoc renders the <redoc> element by itself once its bundle loads. */
const DOCS_HTML = `<!doctype html>
<html lang="${DOCUMENT_LANGUAGE}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Tawsil Delivery API reference</title></head>
<body><redoc spec-url="/v2/openapi.json"></redoc><script src="${RENDERER_PATH}"></script></body>
</html>
`;

const CACHEABLE = "public, max-age=300";

/** A file with its ETag; `If-None-Match` naming it answers 304. */
function sendFile(request: FastifyRequest, reply: FastifyReply, file: ServedFile, contentType: string): FastifyReply {
  void reply.header("etag", file.etag).header("cache-control", CACHEABLE).header("content-language", DOCUMENT_LANGUAGE);
  const tags = request.headers["if-none-match"]?.split(",").map((tag) => tag.trim().replace(/^W\//, ""));
  if (tags?.includes(file.etag) || tags?.includes("*")) return reply.code(304).send();
  return reply.header("content-type", contentType).send(file.body);
}

/** GET /v2/openapi.json (the document, converted once at start) and GET /docs (its Redoc reference page). */
export function registerOpenApi(app: FastifyInstance): void {
  const document = openApiJson();
  const renderer = rendererScript();
  resource(app, "/v2/openapi.json", { GET: { handler: async (request, reply) => sendFile(request, reply, document, "application/json") } });
  resource(app, RENDERER_PATH, { GET: { handler: async (request, reply) => sendFile(request, reply, renderer, "text/javascript; charset=utf-8") } });
  resource(app, "/docs", {
    GET: {
      handler: async (_request, reply) =>
        reply
          .headers({
            "content-type": "text/html; charset=utf-8",
            "content-language": DOCUMENT_LANGUAGE,
            "content-security-policy": DOCS_CSP,
            "cache-control": CACHEABLE,
            "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer",
          })
          .send(DOCS_HTML),
    },
  });
}
