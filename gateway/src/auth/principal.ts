/**
 * Who is calling: established from a verified access token, never from the request itself. A
 * merchant's client acts for its merchant; a driver's client (decisions.md section 17) for its
 * driver, and has no merchant (merchantId is empty, and no merchant route admits it).
 */
export type Principal = MerchantPrincipal | DriverPrincipal;

interface TokenFacts {
  readonly clientId: string;
  readonly scopes: ReadonlySet<string>;
  /** Expiry, epoch seconds. */
  readonly expiresAt: number;
  /** When the merchant service issued the token (`iat`), epoch seconds: revocations compare with it. */
  readonly issuedAt: number;
}

export interface MerchantPrincipal extends TokenFacts {
  readonly kind: "merchant";
  /** Scopes every downstream call; no endpoint takes a merchant id from the request. */
  readonly merchantId: string;
}

export interface DriverPrincipal extends TokenFacts {
  readonly kind: "driver";
  /** Scopes every call to dispatch; no driver route takes a driver id from the request. */
  readonly driverId: string;
  readonly merchantId: "";
}

export const SCOPES = ["shipments:read", "shipments:write", "webhooks:manage"] as const;
export type Scope = (typeof SCOPES)[number];

/** The one scope of a driver's token. */
export const DRIVER_SCOPE = "driver";
