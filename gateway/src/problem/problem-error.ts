import type { Localized, ProblemCode } from "./catalogue";

export interface Violation {
  readonly field: string;
  readonly code: string;
  readonly message: Localized;
}

/** Thrown anywhere in the gateway to answer with a problem; rendered once, by the error handler. */
export class ProblemError extends Error {
  constructor(
    readonly code: ProblemCode,
    readonly detail?: Localized,
    readonly extra: { violations?: readonly Violation[]; headers?: Record<string, string> } = {},
  ) {
    super(code);
    this.name = "ProblemError";
  }
}
