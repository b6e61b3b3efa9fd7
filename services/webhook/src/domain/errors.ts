import { DomainError, FailedPreconditionError, VersionConflictError } from "@tawsil/errors";

/** One broken rule of the endpoint URL; the gateway words it from the code and rule. */
export interface UrlViolation {
  /** A violation code of decisions.md section 12. */
  readonly code: "INVALID_FORMAT" | "TOO_LONG" | "UNSUPPORTED_VALUE" | "INCONSISTENT_VALUE";
  /** Which rule: SCHEME, LENGTH, ABSOLUTE, USERINFO, FRAGMENT, ADDRESS, UNRESOLVABLE. */
  readonly rule: string;
}

/** The URL breaks a rule of decisions.md section 11; travels as a FieldViolation on `url`. */
export class EndpointUrlError extends DomainError {
  override readonly name = "EndpointUrlError";
  readonly reason = "VALIDATION_FAILED";
  readonly kind = "invalid-argument";
  constructor(readonly violation: UrlViolation) {
    super(`url: ${violation.rule}`);
  }
}

/** The caller's If-Match names another version than the stored one. */
export class StaleVersionError extends VersionConflictError {
  constructor(expected: bigint, actual: bigint) {
    super("WEBHOOK_VERSION_MISMATCH", `expected version ${expected}, the endpoint is at ${actual}`);
  }
}

/** The hourly rotation quota of this merchant is spent. */
export class RotationLimitedError extends FailedPreconditionError {
  constructor(
    readonly retryAfterSeconds: number,
    readonly quota: number,
    readonly windowSeconds: number,
  ) {
    super("WEBHOOK_ROTATION_LIMITED", `at most ${quota} secret rotations per ${windowSeconds} s`);
  }
}
