import type { Principal } from "./principal";

/**
 * Access revoked before tokens expire (a disabled client, a terminated merchant), as this replica
 * heard of it from the merchant service's events. A token is refused when it was issued at or
 * before the revocation of its client or of its merchant: one a client gets after being enabled
 * again works. A revocation is forgotten once every token it could concern has expired, so the
 * maps hold at most a token lifetime's worth of revocations (rare, operators' actions).
 */
export class Revocations {
  readonly #clients = new Map<string, number>();
  readonly #merchants = new Map<string, number>();

  /** @param retainMs the longest a token lives (its lifetime plus the accepted clock skew). */
  constructor(private readonly retainMs: number) {}

  /** Records a revocation at `atMs` (epoch ms); `clientId` undefined revokes every client of the merchant. */
  revoke(merchantId: string, clientId: string | undefined, atMs: number, now = Date.now()): void {
    if (atMs + this.retainMs <= now) return; // every token it concerns has expired already
    this.#forgetExpired(now);
    const [map, key] = clientId ? [this.#clients, clientId] : [this.#merchants, merchantId];
    map.set(key, Math.max(map.get(key) ?? 0, atMs));
  }

  /** True when the token was issued at or before a revocation of its client or merchant. */
  revoked(principal: Pick<Principal, "clientId" | "merchantId" | "issuedAt">): boolean {
    const issuedMs = principal.issuedAt * 1000;
    const client = this.#clients.get(principal.clientId);
    const merchant = this.#merchants.get(principal.merchantId);
    return (client !== undefined && issuedMs <= client) || (merchant !== undefined && issuedMs <= merchant);
  }

  get size(): number {
    return this.#clients.size + this.#merchants.size;
  }

  #forgetExpired(now: number): void {
    for (const map of [this.#clients, this.#merchants]) {
      for (const [key, atMs] of map) if (atMs + this.retainMs <= now) map.delete(key);
    }
  }
}
