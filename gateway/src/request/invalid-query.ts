import { clip, echo, PROBLEM_BOUNDS } from "../problem/bounds";
import { ProblemError } from "../problem/problem-error";
import type { ViolationCode } from "../validation/violation-messages";

/** One broken rule of a query string: the parameter, its violation code, and the sentence that names both. */
export interface QueryIssue {
  readonly name: string;
  readonly code: ViolationCode;
  readonly en: string;
  readonly ar: string;
}

/**
 * 400 INVALID_PARAMETER naming every broken parameter (decisions.md section 12), in violations and
 * in the detail: a merchant who fixes the first one should not meet the second on the next try.
 */
export function invalidQuery(issues: readonly QueryIssue[]): ProblemError {
  const detail = (lang: "en" | "ar") => clip(issues.map((issue) => issue[lang]).join(" "), PROBLEM_BOUNDS.detail);
  return new ProblemError(
    "INVALID_PARAMETER",
    { en: detail("en"), ar: detail("ar") },
    { violations: issues.map((issue) => ({ field: echo(issue.name), code: issue.code, message: { en: issue.en, ar: issue.ar } })) },
  );
}
