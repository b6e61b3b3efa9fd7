import { clip, PROBLEM_BOUNDS } from "../problem/bounds";
import type { Localized } from "../problem/catalogue";

/** Violation codes of decisions.md section 12. */
export type ViolationCode =
  | "REQUIRED"
  | "UNKNOWN_PROPERTY"
  | "INVALID_TYPE"
  | "INVALID_FORMAT"
  | "TOO_SHORT"
  | "TOO_LONG"
  | "PATTERN_MISMATCH"
  | "OUT_OF_RANGE"
  | "NOT_MULTIPLE_OF"
  | "TOO_FEW_ITEMS"
  | "TOO_MANY_ITEMS"
  | "UNSUPPORTED_VALUE"
  | "INCONSISTENT_VALUE"
  | "UNKNOWN_REFERENCE";

export interface ViolationParams {
  readonly entity?: string;
  readonly expected?: string;
  readonly min?: number | string;
  readonly max?: number | string;
  /** The bound itself is not allowed (e.g. > 0 rather than >= 0). */
  readonly exclusive?: boolean;
  readonly pattern?: string;
  readonly format?: string;
  readonly multipleOf?: string;
  readonly values?: readonly string[];
  /** For codes whose message is the rule itself (INCONSISTENT_VALUE, UNKNOWN_REFERENCE), or a pattern worded by example. */
  readonly rule?: Localized;
}

const TYPE_NAMES: Record<string, Localized> = {
  string: { en: "string", ar: "نصًا" },
  number: { en: "number", ar: "رقمًا" },
  int: { en: "integer", ar: "عددًا صحيحًا" },
  boolean: { en: "boolean", ar: "قيمة منطقية" },
  object: { en: "object", ar: "كائنًا" },
  array: { en: "array", ar: "مصفوفة" },
};

function range(p: ViolationParams): Localized {
  // A service may judge a range it cannot state as one bound (a coordinate pair, say).
  if (p.min === undefined && p.max === undefined) return { en: "is out of range", ar: "خارج النطاق المسموح" };
  if (p.min !== undefined && p.max !== undefined) return { en: `must be between ${p.min} and ${p.max}`, ar: `يجب أن يكون بين ${p.min} و${p.max}` };
  if (p.min !== undefined) {
    return p.exclusive ? { en: `must be greater than ${p.min}`, ar: `يجب أن يكون أكبر من ${p.min}` } : { en: `must be at least ${p.min}`, ar: `يجب ألا يقل عن ${p.min}` };
  }
  return p.exclusive ? { en: `must be less than ${p.max}`, ar: `يجب أن يكون أقل من ${p.max}` } : { en: `must be at most ${p.max}`, ar: `يجب ألا يزيد على ${p.max}` };
}

/** The message of a violation in both languages; codes are never translated. */
export function violationMessage(code: ViolationCode, p: ViolationParams = {}): Localized {
  const type = TYPE_NAMES[p.expected ?? ""] ?? { en: p.expected ?? "value", ar: p.expected ?? "قيمة" };
  const values = (p.values ?? []).join(", ");
  const message: Localized = (() => {
    switch (code) {
      case "REQUIRED":
        return { en: "is required", ar: "هذا الحقل مطلوب" };
      case "UNKNOWN_PROPERTY":
        return { en: "is not a property of this request", ar: "ليس من خصائص هذا الطلب" };
      case "INVALID_TYPE":
        return { en: `must be a ${type.en}`, ar: `يجب أن يكون ${type.ar}` };
      case "INVALID_FORMAT":
        return { en: `must be a valid ${p.format ?? "value"}`, ar: `يجب أن يكون بصيغة ${p.format ?? "صحيحة"} صالحة` };
      case "TOO_SHORT":
        return { en: `must be at least ${p.min} characters long`, ar: `يجب ألا يقل طوله عن ${p.min} حرفًا` };
      case "TOO_LONG":
        return { en: `must be at most ${p.max} characters long`, ar: `يجب ألا يزيد طوله على ${p.max} حرفًا` };
      case "PATTERN_MISMATCH":
        // A rule a merchant reads better by example (a phone number) says so instead of its regex.
        return p.rule ?? { en: `must match ${p.pattern}`, ar: `يجب أن يطابق النمط ${p.pattern}` };
      case "OUT_OF_RANGE":
        return range(p);
      case "NOT_MULTIPLE_OF":
        return { en: `must be a multiple of ${p.multipleOf}`, ar: `يجب أن يكون من مضاعفات ${p.multipleOf}` };
      case "TOO_FEW_ITEMS":
        return { en: `must have at least ${p.min} items`, ar: `يجب ألا يقل عدد العناصر عن ${p.min}` };
      case "TOO_MANY_ITEMS":
        return { en: `must have at most ${p.max} items`, ar: `يجب ألا يزيد عدد العناصر على ${p.max}` };
      case "UNSUPPORTED_VALUE":
        return { en: `must be one of ${values}`, ar: `يجب أن يكون إحدى القيم: ${values}` };
      case "INCONSISTENT_VALUE":
      case "UNKNOWN_REFERENCE":
        return p.rule ?? { en: "is not valid here", ar: "غير صالح هنا" };
    }
  })();
  return { en: clip(message.en, PROBLEM_BOUNDS.message), ar: clip(message.ar, PROBLEM_BOUNDS.message) };
}
