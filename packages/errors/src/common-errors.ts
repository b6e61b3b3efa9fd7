import { DomainError, type ErrorKind } from "./domain-error";

/** A field that is missing or malformed. The message names the field and the rule, never a secret. */
export class ValidationError extends DomainError {
  override readonly name = "ValidationError";
  readonly reason = "INVALID_ARGUMENT";
  readonly kind = "invalid-argument";
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}

/** "saved location" becomes SAVED_LOCATION, the prefix of the entity's reasons. */
const reasonOf = (entity: string) => entity.toUpperCase().replaceAll(" ", "_");

/** The entity (a lower-case noun such as "merchant" or "saved location") does not exist: <ENTITY>_NOT_FOUND. */
export class NotFoundError extends DomainError {
  override readonly name = "NotFoundError";
  readonly reason: string;
  readonly kind = "not-found";
  constructor(readonly entity: string) {
    super(`${entity} not found`);
    this.reason = `${reasonOf(entity)}_NOT_FOUND`;
  }
}

/** An entity with that code exists already: <ENTITY>_ALREADY_EXISTS. */
export class AlreadyExistsError extends DomainError {
  override readonly name = "AlreadyExistsError";
  readonly reason: string;
  readonly kind = "already-exists";
  constructor(
    readonly entity: string,
    code: string,
  ) {
    super(`${entity} ${code} already exists`);
    this.reason = `${reasonOf(entity)}_ALREADY_EXISTS`;
  }
}

/** A kind whose reason the thrower names, because one kind covers many rules. */
export abstract class ReasonedError extends DomainError {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The operation is not allowed as things stand (a terminated merchant, a delivery outside coverage,
 * no rate card); the reason names which rule refused it.
 */
export class FailedPreconditionError extends ReasonedError {
  override readonly name = "FailedPreconditionError";
  readonly kind = "failed-precondition";
}

/** A compare-and-set lost: the caller read an older version and should read again. */
export class VersionConflictError extends ReasonedError {
  override readonly name = "VersionConflictError";
  readonly kind = "aborted";
}

/**
 * A dependency (a peer service, a routing engine) is down, slow or answered nonsense. The caller
 * fails closed instead of guessing; the message names the dependency's role, never its address,
 * and the cause is logged at the RPC edge, never sent.
 */
export class DependencyUnavailableError extends DomainError {
  override readonly name = "DependencyUnavailableError";
  readonly reason = "DEPENDENCY_UNAVAILABLE";
  readonly kind = "unavailable";
  constructor(dependency: string, options?: { cause?: unknown }) {
    super(`${dependency} is unavailable`, options);
  }
}

/** A ReasonedError of one kind: each kind below is one line, and a service's own failure one short subclass. */
function ofKind<K extends ErrorKind>(kind: K, name: string) {
  return class extends ReasonedError {
    override readonly name: string = name;
    readonly kind: K = kind;
  };
}

/** A request that breaks a rule of the service's own (a cursor it did not issue, a scope that is not granted). */
export class InvalidArgumentError extends ofKind("invalid-argument", "InvalidArgumentError") {}

/** The caller could not be authenticated; the message must not say why. */
export class UnauthenticatedError extends ofKind("unauthenticated", "UnauthenticatedError") {}

/** The caller is known but may not do this (another merchant's shipment, a merchant not active). */
export class PermissionDeniedError extends ofKind("permission-denied", "PermissionDeniedError") {}

/** A value that must be unique is taken already, under a reason of the thrower's (DUPLICATE_REFERENCE). */
export class DuplicateError extends ofKind("already-exists", "DuplicateError") {}
