import type { DomainError } from "@tawsil/errors";
import { FieldViolationsSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { ShipmentValidationError } from "../domain/errors";

/** The FieldViolations that travel beside a VALIDATION_FAILED reason, for the gateway to word. */
export function shipmentErrorDetails(error: DomainError) {
  if (!(error instanceof ShipmentValidationError)) return [];
  return [{ desc: FieldViolationsSchema, value: { violations: error.violations.map((v) => ({ field: v.field, code: v.code, params: { ...v.params } })) } }];
}
