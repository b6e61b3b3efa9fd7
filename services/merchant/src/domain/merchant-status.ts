import { FailedPreconditionError } from "@tawsil/errors";

export const MERCHANT_STATUSES = ["DRAFT", "ACTIVE", "SUSPENDED", "TERMINATED"] as const;
export type MerchantStatus = (typeof MERCHANT_STATUSES)[number];

/** Where each status may go (decisions.md section 10). TERMINATED has left for good. */
const NEXT: Record<MerchantStatus, readonly MerchantStatus[]> = {
  DRAFT: ["ACTIVE", "TERMINATED"],
  ACTIVE: ["SUSPENDED", "TERMINATED"],
  SUSPENDED: ["ACTIVE", "TERMINATED"],
  TERMINATED: [],
};

/**
 * Checks a status change. Setting the status a merchant already has is allowed and changes
 * nothing, so an operator (or the dev seed) can repeat a command safely.
 */
export function assertStatusTransition(from: MerchantStatus, to: MerchantStatus): void {
  if (from === to || NEXT[from].includes(to)) return;
  throw new FailedPreconditionError("INVALID_STATUS_TRANSITION", `a merchant cannot move from ${from} to ${to}`);
}

/** A terminated merchant's clients no longer authenticate and it gets no new ones. */
export function canAuthenticate(status: MerchantStatus): boolean {
  return status !== "TERMINATED";
}
