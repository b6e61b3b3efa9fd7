import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { negotiateLanguage, type Language } from "../request/language";
import { PROBLEMS } from "./catalogue";
import { ProblemError } from "./problem-error";
import { problemBody } from "./render";

type ClientError = Error & { code?: string; rawPacket?: unknown };

/** The catalogue has no 408 or 431: a request Node could not read whole is one that cannot be parsed. */
function problemOf(error: ClientError): ProblemError {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return new ProblemError("MALFORMED_REQUEST", {
        en: "The request line and headers together exceed the size this server accepts.",
        ar: "يتجاوز سطر الطلب والترويسات معًا الحجم الذي يقبله الخادم.",
      });
    case "ERR_HTTP_REQUEST_TIMEOUT":
    case "ERR_HTTP_REQUEST_HEADERS_TIMEOUT":
      return new ProblemError("MALFORMED_REQUEST", { en: "The request did not arrive completely in time.", ar: "لم يصل الطلب كاملًا في الوقت المحدد." });
    default:
      return new ProblemError("MALFORMED_REQUEST", { en: "The request is not valid HTTP/1.1.", ar: "الطلب ليس HTTP/1.1 صالحًا." });
  }
}

/**
 * The caller's language, read from the bytes Node managed to receive: the headers were never
 * parsed, so this is a best effort that falls back to English.
 */
function languageIn(raw: unknown): Language {
  const match = (Buffer.isBuffer(raw) ? raw.toString("latin1") : "").match(/\r\naccept-language:[ \t]*([^\r\n]{0,64})\r\n/i);
  return negotiateLanguage(match?.[1]);
}

/**
 * Fastify's `clientErrorHandler`: Node refused the bytes before there was a request (malformed
 * HTTP, an unknown method, a bad Content-Length, headers over the size limit, a timeout). The
 * answer is still a problem of the catalogue, written straight to the socket, which then closes.
 */
export function clientErrorHandler(baseUrl: string) {
  return (error: ClientError, socket: Socket): void => {
    // A reset connection has nobody to answer.
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    // A response already under way on this connection cannot be followed by another status line.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const problem = problemOf(error);
      const language = languageIn(error.rawPacket);
      const requestId = randomUUID();
      const correlationId = randomUUID();
      // No instance: the request line is what could not be read.
      const body = Buffer.from(JSON.stringify(problemBody(problem, { baseUrl, language, requestId, correlationId })));
      const status = PROBLEMS[problem.code].status;
      const head =
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nContent-Type: application/problem+json\r\nContent-Language: ${language}\r\n` +
        `Content-Length: ${body.length}\r\nX-Request-Id: ${requestId}\r\nX-Correlation-Id: ${correlationId}\r\nConnection: close\r\n\r\n`;
      // Closed once the answer is flushed: whatever else the caller sends cannot be framed.
      socket.end(Buffer.concat([Buffer.from(head, "latin1"), body]), () => socket.destroy());
      return;
    }
    socket.destroy();
  };
}
