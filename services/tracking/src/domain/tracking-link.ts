import { createHash } from "node:crypto";

/** The public code: 43 base64url characters (256 bits), as the contract's path pattern says. */
export const TRACKING_CODE = /^[A-Za-z0-9_-]{43}$/;

/** A link answers until this long after the shipment's terminal state (decisions.md section 9). */
export const LINK_LIFETIME_MS = 7 * 24 * 3600_000;

/** All this service ever keeps of a code: SHA-256 of its ASCII characters. */
export function trackingCodeSha256(code: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(code, "ascii").digest());
}

/** Expired from the instant seven days after the terminal state; a shipment still moving never expires. */
export function isLinkExpired(terminalAt: Date | null, now: Date): boolean {
  return terminalAt !== null && now.getTime() >= terminalAt.getTime() + LINK_LIFETIME_MS;
}
