import type { FastifyRequest } from "fastify";
import { ProblemError } from "../problem/problem-error";

export type Language = "en" | "ar";

const MAX_HEADER_LENGTH = 64;

/**
 * The response language from `Accept-Language` (RFC 9110 12.5.4): the highest-weighted range that
 * is `ar` or `en` (or a subtag of either) wins; anything else falls back to English.
 */
export function negotiateLanguage(header: string | undefined): Language {
  if (!header) return "en";
  let best: Language = "en";
  let bestQ = -1;
  for (const part of header.split(",")) {
    const [range = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    const primary = range.split("-", 1)[0];
    const lang: Language | undefined = primary === "ar" ? "ar" : primary === "en" || primary === "*" ? "en" : undefined;
    if (lang && Number.isFinite(weight) && weight > bestQ) {
      best = lang;
      bestQ = weight;
    }
  }
  return best;
}

/** The contract caps the header at 64 characters; longer is a 400 (decisions.md section 1). */
export function checkLanguageHeader(header: string | undefined): void {
  if (header !== undefined && header.length > MAX_HEADER_LENGTH) {
    throw new ProblemError("INVALID_PARAMETER", {
      en: "Accept-Language must be at most 64 characters.",
      ar: "يجب ألا يتجاوز Accept-Language أربعة وستين حرفًا.",
    });
  }
}

export function languageOf(request: FastifyRequest): Language {
  const header = request.headers["accept-language"];
  // An over-long header is itself the problem being reported: answer it in English.
  return typeof header === "string" && header.length <= MAX_HEADER_LENGTH ? negotiateLanguage(header) : "en";
}
