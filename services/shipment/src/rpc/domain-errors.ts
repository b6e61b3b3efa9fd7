import type { DomainError } from "@tawsil/errors";
import { FieldViolationsSchema, RetryDelaySchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { ShipmentValidationError } from "../domain/errors";
import { DeliveryPinLockedError } from "../domain/proof-of-delivery";

/**
 * The details that travel beside a reason, for the gateway to word: the FieldViolations of
 * VALIDATION_FAILED, the RetryDelay of DELIVERY_PIN_LOCKED (its Retry-After).
 */
export function shipmentErrorDetails(error: DomainError) {
  if (error instanceof DeliveryPinLockedError) return [{ desc: RetryDelaySchema, value: { seconds: BigInt(error.retryAfterSeconds) } }];
  if (!(error instanceof ShipmentValidationError)) return [];
  return [{ desc: FieldViolationsSchema, value: { violations: error.violations.map((v) => ({ field: v.field, code: v.code, params: { ...v.params } })) } }];
}
