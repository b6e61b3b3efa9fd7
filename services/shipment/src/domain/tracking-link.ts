import { createHmac } from "node:crypto";

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
