import type { FastifyError } from "fastify";
import { ProblemError } from "./problem-error";

const BAD_PATH = {
  en: "A path parameter is malformed: too long or not valid percent-encoding.",
  ar: "أحد معاملات المسار غير صالح: طويل جدًا أو بترميز غير صالح.",
};

/**
 * Fastify's own refusals, as the contract's problems (decisions.md section 12: 400 is for what
 * cannot be parsed). Matched by fastify's error code first, then by status, so a refusal fastify
 * adds later still leaves as a problem of the catalogue rather than fastify's own body.
 */
/** The detail of 404 RESOURCE_NOT_FOUND: a path the API does not have. */
export const NO_RESOURCE = { en: "No resource exists at this path.", ar: "لا يوجد مورد في هذا المسار." };

/**
 * `isParameterised` tells whether the refused request's target has the shape of a route with a
 * parameter; without it every undecodable path counts as a malformed parameter.
 */
export function problemFromFastify(error: FastifyError | Error, bodyLimitBytes: number, isParameterised: () => boolean = () => true): ProblemError | undefined {
  const code = "code" in error ? error.code : undefined;
  switch (code) {
    // The router refuses a path segment over maxParamLength before matching a route. Every path
    // parameter of the API is an identifier far shorter than the limit (a uuid, a 43-character
    // tracking code), so this is a malformed path parameter: 400 INVALID_PARAMETER, as for a
    // malformed shipment id (decisions.md section 8).
    case "FST_ERR_MAX_PARAM_LENGTH":
      return new ProblemError("INVALID_PARAMETER", BAD_PATH);
    // A path that does not percent-decode is refused before matching too: a malformed parameter
    // when it has the shape of a route with one, else a path the API does not have (found by
    // fuzzing: /v2/external/%ff answered 400 where the document promises 404 RESOURCE_NOT_FOUND).
    case "FST_ERR_BAD_URL":
      return isParameterised() ? new ProblemError("INVALID_PARAMETER", BAD_PATH) : new ProblemError("RESOURCE_NOT_FOUND", NO_RESOURCE);
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return tooLarge(bodyLimitBytes);
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new ProblemError("UNSUPPORTED_MEDIA_TYPE", { en: "Send the body as application/json.", ar: "أرسل المحتوى بصيغة application/json." });
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return malformed({ en: "The body length does not match Content-Length.", ar: "طول المحتوى لا يطابق Content-Length." });
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return malformed({ en: "The body is empty although Content-Type is application/json.", ar: "المحتوى فارغ رغم أن Content-Type هو application/json." });
    default:
      break;
  }
  const status = "statusCode" in error ? error.statusCode : undefined;
  if (status === 413) return tooLarge(bodyLimitBytes);
  if (status === 415) return new ProblemError("UNSUPPORTED_MEDIA_TYPE", { en: "Send the body as application/json.", ar: "أرسل المحتوى بصيغة application/json." });
  // The JSON parser's SyntaxError, prototype poisoning included, carries status 400.
  if (status === 400 && (error instanceof SyntaxError || code === "FST_ERR_CTP_INVALID_JSON_BODY")) {
    return malformed({ en: "The request body is not valid JSON.", ar: "محتوى الطلب ليس JSON صالحًا." });
  }
  // Any other refusal of the caller's request (4xx) that fastify may raise: unparseable.
  if (status !== undefined && status >= 400 && status < 500) return malformed({ en: "The request cannot be parsed.", ar: "تعذّر تحليل الطلب." });
  return undefined;
}

function malformed(detail: { en: string; ar: string }): ProblemError {
  return new ProblemError("MALFORMED_REQUEST", detail);
}

function tooLarge(bytes: number): ProblemError {
  const size = bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
  return new ProblemError("PAYLOAD_TOO_LARGE", { en: `The request body exceeds ${size}.`, ar: `يتجاوز حجم الطلب ${size}.` });
}
