import { InvalidArgumentError, UnauthenticatedError } from "@tawsil/errors";

/*
 * Failures only the merchant domain has. The kinds every service shares (ValidationError,
 * NotFoundError, AlreadyExistsError, FailedPreconditionError, VersionConflictError) come from
 * @tawsil/errors; the RPC edge maps every kind to a Connect code once (@tawsil/rpc withDomainErrors).
 */

/**
 * Client authentication failed. One message for every cause (unknown client, wrong secret,
 * disabled, other environment, terminated merchant) so a caller learns nothing about which.
 */
export class InvalidClientError extends UnauthenticatedError {
  override readonly name = "InvalidClientError";
  constructor() {
    super("INVALID_CLIENT", "client authentication failed");
  }
}

/** The client asked for a scope it does not hold (or one that does not exist). */
export class InvalidScopeError extends InvalidArgumentError {
  override readonly name = "InvalidScopeError";
  constructor(scope: string) {
    super("INVALID_SCOPE", `scope ${JSON.stringify(scope)} is not granted to this client`);
  }
}
