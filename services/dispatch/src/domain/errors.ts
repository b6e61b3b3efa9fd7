import { DomainError, FailedPreconditionError, NotFoundError, type ErrorKind } from "@tawsil/errors";

/** The reasons of driver-facing failures (driver_service.proto). */
export const offerNotFound = () => new NotFoundError("offer");
export const driverNotFound = () => new NotFoundError("driver");
export const offerNotOpen = () => new FailedPreconditionError("OFFER_NOT_OPEN", "the offer is no longer open (expired, declined or taken)");
export const notAssigned = () => new FailedPreconditionError("NOT_ASSIGNED", "the shipment is not the driver's");
export const stepNotAllowed = () => new FailedPreconditionError("STEP_NOT_ALLOWED", "the shipment's state does not allow this step");

/** One broken rule of a delivery's proof, in the shipment service's own field names. */
export interface ProofViolation {
  readonly field: string;
  readonly code: string;
  readonly params: Readonly<Record<string, string>>;
}

/**
 * The shipment service refused a delivery's proof (decisions.md section 17): VALIDATION_FAILED with
 * its violations, or DELIVERY_PIN_LOCKED with how long to wait. Dispatch decides nothing about it
 * and passes it on to the driver unchanged, details included.
 */
export class DeliveryProofRefusedError extends DomainError {
  override readonly name = "DeliveryProofRefusedError";
  constructor(
    readonly reason: string,
    readonly kind: ErrorKind,
    readonly violations: readonly ProofViolation[],
    readonly retryAfterSeconds: number | null,
  ) {
    super(reason === "DELIVERY_PIN_LOCKED" ? "too many wrong delivery PINs; the delivery is held" : "the delivery's proof breaks the rules listed in its violations");
  }
}
