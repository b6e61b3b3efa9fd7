import type { FastifyRequest } from "fastify";
import { ProblemError } from "../problem/problem-error";

/**
 * The Idempotency-Key header when sent: 16 to 128 characters, else 400 INVALID_PARAMETER
 * (decisions.md section 1). Undefined when absent; the operation then uses its default key.
 */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers["idempotency-key"];
  if (header === undefined) return undefined;
  const value = Array.isArray(header) ? undefined : header;
  if (value === undefined || value.length < 16 || value.length > 128 || !/^[\x21-\x7e]+$/.test(value)) {
    throw new ProblemError("INVALID_PARAMETER", {
      en: "Idempotency-Key must be one value of 16 to 128 visible ASCII characters.",
      ar: "يجب أن يكون Idempotency-Key قيمة واحدة من 16 إلى 128 حرفًا مرئيًا.",
    });
  }
  return value;
}
