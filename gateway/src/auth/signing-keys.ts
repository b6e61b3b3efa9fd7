import type { Client } from "@connectrpc/connect";
import type { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";

/** Refreshes for unknown kids happen at most this often: made-up kids cannot hammer the issuer. */
const REFRESH_COOLDOWN_MS = 1_000;
/** Keys are re-read at least this often, so the published set follows rotations. */
const MAX_AGE_MS = 60_000;

/**
 * The issuer's public keys (JWKS), fetched from the merchant service of this environment and held
 * in memory, so verifying a token needs no call at all. A token naming an unknown key id (the
 * issuer may have just rotated) waits for the next refresh, at most one per cooldown, and is
 * rejected only if the fresh set still lacks its key.
 */
export class SigningKeys {
  #jwks: JSONWebKeySet = { keys: [] };
  #verifier: JWTVerifyGetKey = createLocalJWKSet(this.#jwks);
  #fetchedAt = 0;
  #refreshing: Promise<void> | undefined;
  /** When a refresh last started, successful or not: a failing issuer is asked at most once per cooldown. */
  #attemptedAt = 0;

  constructor(private readonly merchant: Client<typeof MerchantService>) {}

  /** Whether the issuer ever answered: until then no token can be verified (the gateway is not ready). */
  get loaded(): boolean {
    return this.#fetchedAt > 0;
  }

  /** The published key set, as served at /.well-known/jwks.json. */
  async current(): Promise<JSONWebKeySet> {
    await this.#fresh();
    return this.#jwks;
  }

  /** The key resolver jose uses. */
  async resolver(): Promise<JWTVerifyGetKey> {
    await this.#fresh();
    return this.#verifier;
  }

  /**
   * Only the very first read waits for the issuer. Later, an aged set is refreshed in the
   * background while requests keep verifying against the keys already held (stale while
   * revalidate): a slow or failing merchant service never delays or breaks a verification.
   */
  async #fresh(): Promise<void> {
    if (this.#fetchedAt === 0) return this.refresh();
    const now = Date.now();
    if (now - this.#fetchedAt > MAX_AGE_MS && now - this.#attemptedAt > REFRESH_COOLDOWN_MS) this.refresh().catch(() => {});
  }

  /** Re-reads the keys once the cooldown since the last read has passed (waiting for it if needed). */
  async refreshForUnknownKid(): Promise<void> {
    const wait = this.#fetchedAt + REFRESH_COOLDOWN_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    // Everyone who waited shares one refresh; a read newer than the wait needs no other.
    if (Date.now() - this.#fetchedAt >= REFRESH_COOLDOWN_MS) await this.refresh();
  }

  refresh(): Promise<void> {
    this.#refreshing ??= (async () => {
      this.#attemptedAt = Date.now();
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
