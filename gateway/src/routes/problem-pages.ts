import type { FastifyInstance } from "fastify";
import { NO_RESOURCE } from "../problem/framework-errors";
import { codeOfSlug, PROBLEM_PAGE_CSP, problemPage } from "../problem/page";
import { ProblemError } from "../problem/problem-error";
import { languageOf } from "../request/language";
import { resource } from "./route-table";

/**
 * GET /problems/{slug}: every problem's `type` leads to a page a person can read (RFC 9457 section
 * 3.1.1), in the language Accept-Language asks for. Outside the versioned API (no /v2): these are
 * documentation, not operations; a slug that names no code is a 404 like any unknown path.
 */
export function registerProblemPages(app: FastifyInstance): void {
  resource(app, "/problems/:slug", {
    GET: {
      handler: async (request, reply) => {
        const code = codeOfSlug((request.params as { slug: string }).slug);
        if (!code) throw new ProblemError("RESOURCE_NOT_FOUND", NO_RESOURCE);
        return reply
          .headers({
            "content-type": "text/html; charset=utf-8",
            "content-language": languageOf(request),
            vary: "Accept-Language",
            "content-security-policy": PROBLEM_PAGE_CSP,
            "cache-control": "public, max-age=3600",
            "x-content-type-options": "nosniff",
            "referrer-policy": "no-referrer",
          })
          .send(problemPage(code, languageOf(request)));
      },
    },
  });
}
