import type { FastifyRequest } from "fastify";
import { ProblemError } from "../problem/problem-error";

/**
 * The version an If-Match names (delivery-api.md Webhook management): missing is 428; anything but
 * one strong entity tag of digits (a weak tag, a list, `*`) can never match the endpoint's strong
 * version, so it is a stale precondition, 412.
 */
export function ifMatchVersion(request: FastifyRequest): bigint {
  const header = request.headers["if-match"];
  if (header === undefined || header === "") {
    throw new ProblemError("PRECONDITION_REQUIRED", {
      en: "This change requires If-Match with the endpoint's current ETag.",
      ar: "يتطلب هذا التغيير الترويسة If-Match بقيمة ETag الحالية لنقطة الاستقبال.",
    });
  }
  const match = /^"(\d{1,18})"$/.exec(header.trim());
  if (!match?.[1]) throw stale();
  return BigInt(match[1]);
}

export function stale(): ProblemError {
  return new ProblemError("PRECONDITION_FAILED", {
    en: "The webhook changed since this ETag; read it again and retry with the new ETag.",
    ar: "تغيّر الويب هوك منذ قيمة ETag هذه؛ أعد قراءته ثم أعد المحاولة بالقيمة الجديدة.",
  });
}
