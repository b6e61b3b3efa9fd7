/** Who is calling: established from a verified access token, never from the request itself. */
export interface Principal {
  readonly clientId: string;
  /** Scopes every downstream call; no endpoint takes a merchant id from the request. */
  readonly merchantId: string;
  readonly scopes: ReadonlySet<string>;
  /** Expiry, epoch seconds. */
  readonly expiresAt: number;
  /** When the merchant service issued the token (`iat`), epoch seconds: revocations compare with it. */
  readonly issuedAt: number;
}

export const SCOPES = ["shipments:read", "shipments:write", "webhooks:manage"] as const;
export type Scope = (typeof SCOPES)[number];
