import { ProblemError } from "../problem/problem-error";

/**
 * Which shape a body speaks (decisions.md section 1): the shape A field or the shape B field, and
 * never both or neither.
 */
export type RequestShapeName = "A" | "B";

export function shapeOf(body: unknown, fields: { a: string; b: string }): RequestShapeName {
  const object = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const a = object !== undefined && fields.a in object;
  const b = object !== undefined && fields.b in object;
  if (a !== b) return a ? "A" : "B";
  throw new ProblemError(
    "VALIDATION_FAILED",
    { en: `The body must contain exactly one of ${fields.a} (shape A) or ${fields.b} (shape B).`, ar: `يجب أن يحتوي الطلب على أحد الحقلين فقط: ${fields.a} أو ${fields.b}.` },
    {
      violations: [
        {
          field: a ? fields.b : "body",
          code: a ? "INCONSISTENT_VALUE" : "REQUIRED",
          message: a
            ? { en: `cannot be sent together with ${fields.a}`, ar: `لا يجوز إرساله مع ${fields.a}` }
            : { en: `must contain ${fields.a} or ${fields.b}`, ar: `يجب أن يحتوي على ${fields.a} أو ${fields.b}` },
        },
      ],
    },
  );
}
