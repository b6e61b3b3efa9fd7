import type { z } from "zod";
import { clip, PROBLEM_BOUNDS } from "../problem/bounds";
import { ProblemError, type Violation } from "../problem/problem-error";
import { violationMessage, type ViolationCode, type ViolationParams } from "./violation-messages";


/** `["items", 3, "weightKilograms"]` → `items[3].weightKilograms` (decisions.md section 12). */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : out === "" ? String(part) : `.${String(part)}`;
  return clip(out || "body", PROBLEM_BOUNDS.field);
}

/** Params a schema attaches to a refinement so its failure maps to a contract violation code. */
export interface RuleParams extends ViolationParams {
  readonly code: ViolationCode;
}

function violation(path: readonly PropertyKey[], code: ViolationCode, params?: ViolationParams): Violation {
  return { field: fieldPath(path), code, message: violationMessage(code, params) };
}

/** One zod issue as the contract's violations (an unknown-keys issue names each key). */
function toViolations(issue: z.core.$ZodIssue): Violation[] {
  switch (issue.code) {
    case "invalid_type":
      return [issue.input === undefined ? violation(issue.path, "REQUIRED") : violation(issue.path, "INVALID_TYPE", { expected: issue.expected })];
    case "unrecognized_keys":
      return issue.keys.map((key) => violation([...issue.path, key], "UNKNOWN_PROPERTY"));
    case "too_small":
      if (issue.origin === "string") return [violation(issue.path, "TOO_SHORT", { min: Number(issue.minimum) })];
      if (issue.origin === "array") return [violation(issue.path, "TOO_FEW_ITEMS", { min: Number(issue.minimum) })];
      return [violation(issue.path, "OUT_OF_RANGE", { min: Number(issue.minimum), exclusive: issue.inclusive === false })];
    case "too_big":
      if (issue.origin === "string") return [violation(issue.path, "TOO_LONG", { max: Number(issue.maximum) })];
      if (issue.origin === "array") return [violation(issue.path, "TOO_MANY_ITEMS", { max: Number(issue.maximum) })];
      return [violation(issue.path, "OUT_OF_RANGE", { max: Number(issue.maximum), exclusive: issue.inclusive === false })];
    case "invalid_format":
      return issue.format === "regex"
        ? [violation(issue.path, "PATTERN_MISMATCH", { pattern: (issue as { pattern?: string }).pattern ?? "" })]
        : [violation(issue.path, "INVALID_FORMAT", { format: issue.format })];
    case "not_multiple_of":
      return [violation(issue.path, "NOT_MULTIPLE_OF", { multipleOf: String(issue.divisor) })];
    case "invalid_value":
      return [violation(issue.path, "UNSUPPORTED_VALUE", { values: issue.values.map(String) })];
    case "custom": {
      const params = issue.params as RuleParams | undefined;
      return [violation(issue.path, params?.code ?? "INCONSISTENT_VALUE", params)];
    }
    default:
      return [violation(issue.path, "INVALID_TYPE")];
  }
}

/**
 * Parses a request body with a strict schema. Anything that breaks a rule becomes one 422
 * VALIDATION_FAILED problem listing up to 20 violations in document order, each with its dotted
 * path, contract code and message in both languages.
 */
export function validateBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body, { reportInput: true });
  const violations = result.success ? [] : result.error.issues.flatMap(toViolations);
  // PostgreSQL text cannot hold U+0000: a NUL character in any string is refused here, where it
  // is the caller's mistake, not in a service's database as a 500 (found by fuzzing).
  const named = new Set(violations.map((v) => v.field));
  violations.push(...nulCharacters(body).filter((v) => !named.has(v.field)));
  if (result.success && violations.length === 0) return result.data;
  throw new ProblemError(
    "VALIDATION_FAILED",
    { en: "The request body breaks the rules listed in violations.", ar: "محتوى الطلب يخالف القواعد المذكورة في violations." },
    { violations: violations.slice(0, PROBLEM_BOUNDS.violations) },
  );
}

interface PathLink {
  readonly parent: PathLink | undefined;
  readonly key: PropertyKey;
}

const pathOf = (link: PathLink | undefined): PropertyKey[] => {
  const path: PropertyKey[] = [];
  for (let at = link; at; at = at.parent) path.unshift(at.key);
  return path;
};

/**
 * An INVALID_FORMAT violation for every string of `body` that holds a NUL character, in document
 * order. A loop with linked paths, not recursion: a body may nest thousands of levels deep, and
 * recursion then overflowed the stack into a 500 (found by fuzzing).
 */
function nulCharacters(body: unknown): Violation[] {
  const found: Violation[] = [];
  const pending: { value: unknown; at: PathLink | undefined }[] = [{ value: body, at: undefined }];
  while (pending.length > 0) {
    const { value, at } = pending.pop()!;
    if (typeof value === "string") {
      if (value.includes("\u0000")) found.push(violation(pathOf(at), "INVALID_FORMAT", { format: "text without NUL characters" }));
    } else if (value !== null && typeof value === "object") {
      const entries = Array.isArray(value) ? value.map((item, i) => [i, item] as const) : Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) pending.push({ value: entries[i]![1], at: { parent: at, key: entries[i]![0] } });
    }
  }
  return found;
}
