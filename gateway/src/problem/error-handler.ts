import type { FastifyError, FastifyInstance } from "fastify";
import { problemFromConnect } from "./from-connect";
import { ProblemError } from "./problem-error";
import { sendProblem } from "./render";

/**
 * The gateway's one error edge: every failure, from fastify's own parsing to an unexpected bug,
 * leaves as a problem+json. Unexpected errors are logged and answered as a bare 500; their
 * messages (SQL, hosts, stack frames) never reach the merchant.
 */
export function registerProblemHandlers(app: FastifyInstance, baseUrl: string): void {
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, new ProblemError("RESOURCE_NOT_FOUND", { en: "No resource exists at this path.", ar: "لا يوجد مورد في هذا المسار." }), baseUrl),
  );
  app.setErrorHandler((error: FastifyError | ProblemError, request, reply) => {
    if (error instanceof ProblemError) return sendProblem(request, reply, error, baseUrl);
    const known = problemFromConnect(error) ?? fromFastify(error);
    if (known) return sendProblem(request, reply, known, baseUrl);
    request.log.error({ err: error }, "unhandled error");
    return sendProblem(request, reply, new ProblemError("INTERNAL_ERROR"), baseUrl);
  });
}

/** Fastify's own request errors, by status: parsing problems are the caller's, not ours. */
function fromFastify(error: FastifyError | Error): ProblemError | undefined {
  switch ("statusCode" in error ? error.statusCode : undefined) {
    case 413:
      return new ProblemError("PAYLOAD_TOO_LARGE", { en: "The request body exceeds 256 KiB.", ar: "يتجاوز حجم الطلب 256 كيلوبايت." });
    case 415:
      return new ProblemError("UNSUPPORTED_MEDIA_TYPE", { en: "Send the body as application/json.", ar: "أرسل المحتوى بصيغة application/json." });
    case 400:
      return new ProblemError("MALFORMED_REQUEST", { en: "The request body is not valid JSON.", ar: "محتوى الطلب ليس JSON صالحًا." });
    default:
      return undefined;
  }
}
