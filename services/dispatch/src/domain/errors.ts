/**
 * What can go wrong in the dispatch domain, independent of transport. The RPC edge maps each kind
 * to a Connect code and a stable reason exactly once (rpc/domain-errors.ts).
 */
export abstract class DomainError extends Error {
  /** SCREAMING_SNAKE_CASE, stable: callers branch on it. */
  abstract readonly reason: string;
}

/** A field that is missing or malformed. The message names the field and the rule. */
export class ValidationError extends DomainError {
  override readonly name = "ValidationError";
  readonly reason = "INVALID_ARGUMENT";
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}
