/**
 * What can go wrong in pricing, independent of transport. The RPC edge maps each kind to a Connect
 * code and a stable reason exactly once (rpc/domain-errors.ts).
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

/**
 * The delivery cannot be quoted as asked: OUTSIDE_COVERAGE, CITY_MISMATCH, NO_ELIGIBLE_SERVICE,
 * COD_ABOVE_MAXIMUM or NO_RATE_CARD.
 */
export class FailedPreconditionError extends DomainError {
  override readonly name = "FailedPreconditionError";
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A dependency (a peer service or the routing engine) is down, slow or answered nonsense. Pricing
 * fails closed instead of guessing; the message names the dependency's role, never its address,
 * and the cause is logged at the edge, never sent.
 */
export class DependencyUnavailableError extends DomainError {
  override readonly name = "DependencyUnavailableError";
  readonly reason = "DEPENDENCY_UNAVAILABLE";
  constructor(dependency: string, options?: { cause?: unknown }) {
    super(`${dependency} is unavailable`, options);
  }
}
