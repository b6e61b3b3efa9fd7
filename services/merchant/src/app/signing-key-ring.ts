import type { Logger } from "@tawsil/logging";
import type { ActiveSigningKey, KeySealer, PublicJwk, SigningKeyRow, SigningKeyStore, SigningKeyWriter, TokenSigner } from "./ports";

/** Clock difference the gateway accepts (decisions.md section 10); a retired key stays published this much longer. */
export const CLOCK_SKEW_SECONDS = 60;

export interface SigningKeyRingOptions {
  readonly keys: SigningKeyStore;
  readonly encryption: KeySealer;
  readonly signer: TokenSigner;
  readonly tokenTtlSeconds: number;
  /**
   * How long the current key is trusted without asking the database: a rotation on another
   * replica is picked up within this time. Tokens this replica signs meanwhile with the retired
   * key expire before it leaves the JWKS, because the window is below the skew allowance.
   */
  readonly refreshMs: number;
  readonly logger: Logger;
}

export interface PublishedKey extends PublicJwk {
  readonly kid: string;
}

/**
 * The issuer's ES256 keys: one current key that signs, retired keys that still verify. The current
 * key is decrypted and imported once and kept in memory; signing costs no database round trip
 * unless the cache is older than `refreshMs`, and no decryption unless the kid changed.
 */
export class SigningKeyRing {
  #cached: { key: ActiveSigningKey; checkedAt: number } | undefined;
  #refreshing: Promise<ActiveSigningKey> | undefined;

  constructor(private readonly opts: SigningKeyRingOptions) {
    if (opts.refreshMs >= CLOCK_SKEW_SECONDS * 1000) throw new Error("refreshMs must stay below the clock skew allowance");
  }

  /** At start-up: creates the first key unless one is current. Replicas starting together create exactly one. */
  async ensureCurrent(): Promise<string> {
    const row = await this.opts.keys.exclusively(async (writer) => (await writer.current()) ?? this.#create(writer));
    await this.#activate(row);
    return row.kid;
  }

  /** Retires the current key (published until every token it signed has expired) and makes a new one current. */
  async rotate(): Promise<string> {
    const { retired, created } = await this.opts.keys.exclusively(async (writer) => {
      const current = await writer.current();
      if (current) {
        const now = Date.now();
        await writer.retire(current.kid, new Date(now), new Date(now + (this.opts.tokenTtlSeconds + CLOCK_SKEW_SECONDS) * 1000));
      }
      return { retired: current?.kid, created: await this.#create(writer) };
    });
    await this.#activate(created);
    this.opts.logger.info({ kid: created.kid, retiredKid: retired }, "signing key rotated");
    return created.kid;
  }

  /** The key to sign with now. */
  signingKey(): Promise<ActiveSigningKey> {
    const cached = this.#cached;
    if (cached && Date.now() - cached.checkedAt < this.opts.refreshMs) return Promise.resolve(cached.key);
    // One refresh at a time, however many requests arrive while it runs.
    this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  async published(now = new Date()): Promise<PublishedKey[]> {
    const rows = await this.opts.keys.published(now);
    return rows.map((row) => ({ kid: row.kid, ...row.publicJwk }));
  }

  async #refresh(): Promise<ActiveSigningKey> {
    const row = await this.opts.keys.current();
    if (!row) throw new Error("no current signing key; the service creates one at start-up");
    return this.#activate(row);
  }

  async #activate(row: SigningKeyRow): Promise<ActiveSigningKey> {
    const key = this.#cached?.key.kid === row.kid ? this.#cached.key : await this.opts.signer.importKey(row.kid, this.opts.encryption.open(row.privateKeyEncrypted, row.kid));
    this.#cached = { key, checkedAt: Date.now() };
    return key;
  }

  async #create(writer: SigningKeyWriter): Promise<SigningKeyRow> {
    const generated = await this.opts.signer.generateKey();
    const row = await writer.insert({
      kid: generated.kid,
      publicJwk: generated.publicJwk,
      privateKeyEncrypted: this.opts.encryption.seal(generated.pkcs8, generated.kid),
    });
    generated.pkcs8.fill(0);
    this.opts.logger.info({ kid: row.kid }, "signing key created");
    return row;
  }
}
