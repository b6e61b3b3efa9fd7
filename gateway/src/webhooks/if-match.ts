import type { FastifyRequest } from "fastify";
import { ProblemError } from "../problem/problem-error";

/** What the webhook service reads as "any current version": `If-Match: *` (versions start at 1). */
const ANY_VERSION = 0n;

/**
 * The version an If-Match names (delivery-api.md Webhook management): missing is 428; `*` matches
 * any current version (RFC 9110 section 13.1.1), so the change applies to whatever exists; anything
 * else but one strong entity tag of digits from 1 (a weak tag, a list, "0") can never match the
 * endpoint's strong version, so it is a stale precondition, 412.
 */
export function ifMatchVersion(request: FastifyRequest): bigint {
  const header = request.headers["if-match"];
  if (header === undefined || header === "") {
    throw new ProblemError("PRECONDITION_REQUIRED", {
      en: "This change requires If-Match with the endpoint's current ETag.",
      ar: "يتطلب هذا التغيير الترويسة If-Match بقيمة ETag الحالية لنقطة الاستقبال.",
    });
  }
  if (header.trim() === "*") return ANY_VERSION;
  const match = /^"(\d{1,18})"$/.exec(header.trim());
  if (!match?.[1] || BigInt(match[1]) === ANY_VERSION) throw stale();
  return BigInt(match[1]);
}

export function stale(): ProblemError {
  return new ProblemError("PRECONDITION_FAILED", {
    en: "The webhook changed since this ETag; read it again and retry with the new ETag.",
    ar: "تغيّر الويب هوك منذ قيمة ETag هذه؛ أعد قراءته ثم أعد المحاولة بالقيمة الجديدة.",
  });
}
