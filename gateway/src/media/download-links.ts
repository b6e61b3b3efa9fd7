import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** What a verified download link names: whose asset, which one. */
export interface DownloadGrant {
  readonly merchantId: string;
  readonly mediaAssetId: string;
}

/**
 * The `downloadUrl` of decisions.md section 16: a gateway URL (the bucket stays private and its
 * address unknown to merchants) that carries its own authority, like a presigned URL, so a
 * browser or an <img> can fetch it without the merchant's token. HMAC-SHA256 over the asset, its
 * merchant and the expiry; a changed byte or a passed expiry is refused.
 */
export class DownloadLinks {
  private readonly key: Buffer;

  constructor(
    private readonly opts: { baseUrl: string; key: Buffer | undefined; ttlSeconds: number; clock?: () => number },
  ) {
    this.key = opts.key ?? randomBytes(32);
  }

  private now(): number {
    return Math.floor((this.opts.clock ?? Date.now)() / 1000);
  }

  private signature(grant: DownloadGrant, expires: number): string {
    return createHmac("sha256", this.key).update(`${grant.mediaAssetId}\n${grant.merchantId}\n${expires}`).digest("base64url");
  }

  /** A URL that downloads the asset until now + ttl. */
  urlFor(grant: DownloadGrant): string {
    const expires = this.now() + this.opts.ttlSeconds;
    const query = new URLSearchParams({ merchant: grant.merchantId, expires: String(expires), signature: this.signature(grant, expires) });
    return `${this.opts.baseUrl.replace(/\/$/, "")}/v2/media-downloads/${grant.mediaAssetId}?${query.toString()}`;
  }

  /** The grant a request's parameters prove, or null when they are forged, altered or expired. */
  verify(mediaAssetId: string, query: { merchant?: unknown; expires?: unknown; signature?: unknown }): DownloadGrant | null {
    const { merchant, expires, signature } = query;
    if (typeof merchant !== "string" || typeof expires !== "string" || typeof signature !== "string" || !/^\d{1,12}$/.test(expires)) return null;
    const grant = { merchantId: merchant, mediaAssetId };
    const expected = Buffer.from(this.signature(grant, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    return Number(expires) >= this.now() ? grant : null;
  }
}
