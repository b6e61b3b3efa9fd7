import { createHash, createHmac } from "node:crypto";

/**
 * The customer's tracking URL, derived rather than stored: the 43-character code is the base64url
 * HMAC-SHA256 of the shipment id under TRACKING_LINK_SECRET (256 unguessable bits). The same id
 * always yields the same URL, so later responses repeat it without the clear code ever being kept.
 */
export function trackingUrl(publicBaseUrl: string, secret: Uint8Array, shipmentId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, "")}/t/${trackingCode(secret, shipmentId)}`;
}

export function trackingCode(secret: Uint8Array, shipmentId: string): string {
  return createHmac("sha256", secret).update(shipmentId).digest("base64url");
}

/** What the tracking service stores and looks links up by: SHA-256 of the code's ASCII characters. */
export function trackingCodeSha256(code: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(code, "ascii").digest());
}

/** The hash of a shipment's code, from its id: the code itself is never stored anywhere. */
export function trackingCodeHashOf(secret: Uint8Array, shipmentId: string): Uint8Array {
  return trackingCodeSha256(trackingCode(secret, shipmentId));
}
