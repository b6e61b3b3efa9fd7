import { DomainError } from "@tawsil/errors";

/** The shipment belongs to another merchant: ACCESS_DENIED, never a hint that it exists otherwise. */
export class AccessDeniedError extends DomainError {
  override readonly name = "AccessDeniedError";
  readonly reason = "ACCESS_DENIED";
  readonly kind = "permission-denied";
  constructor() {
    super("the shipment belongs to another merchant");
  }
}
