import { createHash, createHmac } from "node:crypto";

/**
 * The customer's tracking URL, derived rather than stored in the shipment row: the 43-character
 * code is the base64url HMAC-SHA256 of the shipment id under TRACKING_LINK_SECRET (256 unguessable
 * bits). The same id always yields the same URL, so later responses repeat it. The URL leaves this
 * service in responses and in every ShipmentChanged (the webhook sends it to the merchant,
 * decisions.md section 11); the tracking service, which serves the link, keeps only the hash.
 */
export function trackingUrl(publicBaseUrl: string, secret: Uint8Array, shipmentId: string): string {
  return urlOf(publicBaseUrl, trackingCode(secret, shipmentId));
}

export function trackingCode(secret: Uint8Array, shipmentId: string): string {
  return createHmac("sha256", secret).update(shipmentId).digest("base64url");
}

/** What the tracking service stores and looks links up by: SHA-256 of the code's ASCII characters. */
export function trackingCodeSha256(code: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(code, "ascii").digest());
}

/** What every event of a shipment carries of its link: the URL the merchant is given, and the code's hash. */
export interface TrackingLink {
  readonly url: string;
  readonly codeSha256: Uint8Array;
}

/** The shipment's link and its code's hash, from one HMAC. */
export function trackingLinkOf(publicBaseUrl: string, secret: Uint8Array, shipmentId: string): TrackingLink {
  const code = trackingCode(secret, shipmentId);
  return { url: urlOf(publicBaseUrl, code), codeSha256: trackingCodeSha256(code) };
}

const urlOf = (publicBaseUrl: string, code: string) => `${publicBaseUrl.replace(/\/+$/, "")}/t/${code}`;
