import type { ShipmentState } from "./lifecycle";

/**
 * Why a delivery ended without reaching its recipient, as a customer may be told it. The reason
 * code itself stays here: a merchant cancels with a code of its own choosing (decisions.md section
 * 4), which may be private ("FRAUD_CHECK") or mean nothing outside its systems; a driver fails a
 * delivery with one. Only the codes known to mean the same to everyone get a reason of their own;
 * every other code reads as the general case of who ended the delivery.
 */
export type PublicReason = "CUSTOMER_REQUEST" | "CANCELLED_BY_SENDER" | "NOT_ACCEPTED" | "RECIPIENT_UNREACHABLE" | "ADDRESS_NOT_FOUND" | "NOT_COMPLETED";

/** The code an operator's rejection sets (decisions.md section 2). */
const OPERATOR_REJECTION = "REJECTED_BY_OPERATOR";

const CANCEL_REASONS: Readonly<Record<string, PublicReason>> = { CUSTOMER_REQUEST: "CUSTOMER_REQUEST", [OPERATOR_REJECTION]: "NOT_ACCEPTED" };
const FAILURE_REASONS: Readonly<Record<string, PublicReason>> = {
  RECIPIENT_UNREACHABLE: "RECIPIENT_UNREACHABLE",
  RECIPIENT_UNAVAILABLE: "RECIPIENT_UNREACHABLE",
  ADDRESS_NOT_FOUND: "ADDRESS_NOT_FOUND",
};

/** Null unless the shipment was cancelled or its delivery failed. */
export function publicReasonOf(state: ShipmentState, reasonCode: string | null): PublicReason | null {
  const code = reasonCode ?? "";
  if (state === "CANCELLED") return CANCEL_REASONS[code] ?? "CANCELLED_BY_SENDER";
  if (state === "DELIVERY_FAILED") return FAILURE_REASONS[code] ?? "NOT_COMPLETED";
  return null;
}
