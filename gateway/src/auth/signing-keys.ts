import type { Client } from "@connectrpc/connect";
import type { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";

/** After a refresh, another is allowed only this much later: unknown kids cannot hammer the issuer. */
const REFRESH_COOLDOWN_MS = 30_000;
/** Keys are re-read at least this often so a rotation is seen before its first token arrives. */
const MAX_AGE_MS = 5 * 60_000;

/**
 * The issuer's public keys (JWKS), fetched from the merchant service of this environment and held
 * in memory, so verifying a token needs no call at all. A token naming an unknown key id triggers
 * at most one refresh per cooldown; a token it still cannot match is rejected.
 */
export class SigningKeys {
  #jwks: JSONWebKeySet = { keys: [] };
  #verifier: JWTVerifyGetKey = createLocalJWKSet(this.#jwks);
  #fetchedAt = 0;
  #refreshing: Promise<void> | undefined;

  constructor(private readonly merchant: Client<typeof MerchantService>) {}

  /** The published key set, as served at /.well-known/jwks.json. */
  async current(): Promise<JSONWebKeySet> {
    if (Date.now() - this.#fetchedAt > MAX_AGE_MS) await this.refresh();
    return this.#jwks;
  }

  /** The key resolver jose uses; `refreshed` tells whether a retry after a refresh may help. */
  async resolver(): Promise<JWTVerifyGetKey> {
    if (Date.now() - this.#fetchedAt > MAX_AGE_MS) await this.refresh();
    return this.#verifier;
  }

  /** Re-reads the keys unless that happened within the cooldown; returns whether it did. */
  async refreshIfAllowed(): Promise<boolean> {
    if (Date.now() - this.#fetchedAt < REFRESH_COOLDOWN_MS) return false;
    await this.refresh();
    return true;
  }

  refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      try {
        const { keys } = await this.merchant.listSigningKeys({});
        this.#jwks = { keys: keys.map(({ kid, kty, crv, x, y, alg, use }) => ({ kid, kty, crv, x, y, alg, use })) };
        this.#verifier = createLocalJWKSet(this.#jwks);
        this.#fetchedAt = Date.now();
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }
}
