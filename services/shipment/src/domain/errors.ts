import { DomainError, DuplicateError, InvalidArgumentError, PermissionDeniedError } from "@tawsil/errors";

/*
 * Failures only the shipment domain has. The shared kinds (NotFoundError, FailedPreconditionError,
 * VersionConflictError, DependencyUnavailableError, PermissionDeniedError) come from @tawsil/errors; @tawsil/rpc's
 * withDomainErrors maps every kind to a Connect code once (rpc/domain-errors.ts adds the violations).
 */

/**
 * One broken rule, on this service's own field (the ShipmentDraft's proto name, e.g.
 * "items[2].weight_kilograms"): the gateway words it in the merchant's request shape.
 */
export interface FieldViolation {
  readonly field: string;
  /** A violation code of decisions.md section 12. */
  readonly code: string;
  readonly params?: Readonly<Record<string, string>>;
}

/** Rules only the shipment service can judge were broken; the violations travel as FieldViolations. */
export class ShipmentValidationError extends DomainError {
  override readonly name = "ShipmentValidationError";
  readonly reason = "VALIDATION_FAILED";
  readonly kind = "invalid-argument";
  constructor(readonly violations: readonly FieldViolation[]) {
    super(`the shipment breaks ${violations.length} rule(s): ${violations.map((v) => `${v.field} ${v.code}`).join(", ")}`);
  }
}

/** A cursor that this service did not issue for exactly this query (edited, replayed elsewhere). */
export class InvalidCursorError extends InvalidArgumentError {
  override readonly name = "InvalidCursorError";
  constructor() {
    super("INVALID_CURSOR", "the cursor does not belong to this query");
  }
}

/** externalReference is unique per merchant forever, whatever the idempotency key. */
export class DuplicateReferenceError extends DuplicateError {
  override readonly name = "DuplicateReferenceError";
  constructor() {
    super("DUPLICATE_REFERENCE", "a shipment with this reference already exists");
  }
}

/** The shipment belongs to another merchant: ACCESS_DENIED, never a hint that it exists otherwise. */
export const accessDenied = () => accessDeniedTo("shipment");
/** The entity (shipment, media asset) belongs to another merchant. */
export const accessDeniedTo = (entity: string) => new PermissionDeniedError("ACCESS_DENIED", `the ${entity} belongs to another merchant`);
