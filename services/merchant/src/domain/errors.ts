import { DomainError } from "@tawsil/errors";

/*
 * Failures only the merchant domain has. The kinds every service shares (ValidationError,
 * NotFoundError, AlreadyExistsError, FailedPreconditionError, VersionConflictError) come from
 * @tawsil/errors; the RPC edge maps every kind to a Connect code once (@tawsil/rpc withDomainErrors).
 */

/**
 * Client authentication failed. One message for every cause (unknown client, wrong secret,
 * disabled, other environment, terminated merchant) so a caller learns nothing about which.
 */
export class InvalidClientError extends DomainError {
  override readonly name = "InvalidClientError";
  readonly reason = "INVALID_CLIENT";
  readonly kind = "unauthenticated";
  constructor() {
    super("client authentication failed");
  }
}

/** The client asked for a scope it does not hold (or one that does not exist). */
export class InvalidScopeError extends DomainError {
  override readonly name = "InvalidScopeError";
  readonly reason = "INVALID_SCOPE";
  readonly kind = "invalid-argument";
  constructor(scope: string) {
    super(`scope ${JSON.stringify(scope)} is not granted to this client`);
  }
}
