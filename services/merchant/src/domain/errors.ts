/**
 * What can go wrong in the merchant domain, independent of transport. The RPC edge maps each kind
 * to a Connect code and a stable reason exactly once (rpc/domain-errors.ts).
 */
export abstract class DomainError extends Error {
  /** SCREAMING_SNAKE_CASE, stable: callers branch on it. */
  abstract readonly reason: string;
}

/** A field that is missing or malformed. The message names the field and the rule, never a secret. */
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

export type Entity = "merchant" | "client" | "saved location" | "branch";

const reasonOf = (entity: Entity) => entity.toUpperCase().replaceAll(" ", "_");

export class NotFoundError extends DomainError {
  override readonly name = "NotFoundError";
  readonly reason: string;
  constructor(readonly entity: Entity) {
    super(`${entity} not found`);
    this.reason = `${reasonOf(entity)}_NOT_FOUND`;
  }
}

export class AlreadyExistsError extends DomainError {
  override readonly name = "AlreadyExistsError";
  readonly reason: string;
  constructor(
    readonly entity: Entity,
    code: string,
  ) {
    super(`${entity} ${code} already exists`);
    this.reason = `${reasonOf(entity)}_ALREADY_EXISTS`;
  }
}

/**
 * Client authentication failed. One message for every cause (unknown client, wrong secret,
 * disabled, other environment, terminated merchant) so a caller learns nothing about which.
 */
export class InvalidClientError extends DomainError {
  override readonly name = "InvalidClientError";
  readonly reason = "INVALID_CLIENT";
  constructor() {
    super("client authentication failed");
  }
}

/** The client asked for a scope it does not hold (or one that does not exist). */
export class InvalidScopeError extends DomainError {
  override readonly name = "InvalidScopeError";
  readonly reason = "INVALID_SCOPE";
  constructor(scope: string) {
    super(`scope ${JSON.stringify(scope)} is not granted to this client`);
  }
}

/** The operation is not allowed in the aggregate's current state (e.g. a terminated merchant). */
export class FailedPreconditionError extends DomainError {
  override readonly name = "FailedPreconditionError";
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** A compare-and-set lost: the caller read an older version and should read again. */
export class VersionConflictError extends DomainError {
  override readonly name = "VersionConflictError";
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}
