import type { KeyObject } from "node:crypto";
import { decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import { keyIdOf } from "./key-id";

/** A token longer than this is no token of ours: refused before any parsing. */
const MAX_TOKEN_LENGTH = 1024;
/** Clocks of two pods may disagree by this much. */
const CLOCK_TOLERANCE_S = 10;
/** Verified tokens kept; each caller replica brings a new one per minute, so this is never reached in steady state. */
const MAX_CACHED = 4096;

/**
 * Verifies the service tokens a process receives: EdDSA signed by one of the keys configured for
 * the caller the token names (iss = sub), the one its kid names, for this process (aud), not
 * expired. A caller may have several keys while its key is rotated; the kid picks one, so a token
 * costs one signature check whatever the number. A verified token is remembered until it expires,
 * so a caller's calls after its first cost one map lookup.
 */
export class CallerVerifier {
  readonly #verified = new Map<string, { readonly caller: string; readonly expMs: number }>();
  /** Each caller's trusted keys, by key id (keyIdOf). */
  readonly #keys: ReadonlyMap<string, ReadonlyMap<string, KeyObject>>;

  constructor(
    readonly self: string,
    keys: ReadonlyMap<string, readonly KeyObject[]>,
    private readonly now: () => number = Date.now,
  ) {
    this.#keys = new Map([...keys].map(([caller, list]) => [caller, new Map(list.map((key) => [keyIdOf(key), key]))]));
  }

  /** The caller a token proves, from the cache; undefined when it must be verified (or is not valid). */
  cached(token: string): string | undefined {
    const hit = this.#verified.get(token);
    if (hit === undefined) return undefined;
    if (this.now() < hit.expMs + CLOCK_TOLERANCE_S * 1000) return hit.caller;
    this.#verified.delete(token);
    return undefined;
  }

  /** The caller a token proves, or undefined when it is malformed, forged, expired or meant for another service. */
  async verify(token: string): Promise<string | undefined> {
    const cached = this.cached(token);
    if (cached !== undefined) return cached;
    if (token.length > MAX_TOKEN_LENGTH) return undefined;
    const { caller, keys } = this.keysFor(token);
    for (const key of keys) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ["EdDSA"],
          audience: this.self,
          issuer: caller,
          subject: caller,
          clockTolerance: CLOCK_TOLERANCE_S,
          currentDate: new Date(this.now()),
          requiredClaims: ["iss", "sub", "exp", "iat"],
        });
        // exp is a required claim: jwtVerify refused the token without one.
        this.remember(token, caller, (payload.exp ?? 0) * 1000);
        return caller;
      } catch {
        // Not this key (or not valid at all): the next candidate, if any, decides.
      }
    }
    return undefined;
  }

  /** The caller a token claims and the keys that may have signed it; read before any signature is checked, trusted only once one is. */
  private keysFor(token: string): { caller: string; keys: readonly KeyObject[] } {
    let kid: string | undefined;
    let caller: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
      caller = decodeJwt(token).iss;
    } catch {
      return { caller: "", keys: [] };
    }
    const trusted = caller === undefined ? undefined : this.#keys.get(caller);
    if (caller === undefined || trusted === undefined || kid === undefined) return { caller: "", keys: [] };
    const named = trusted.get(kid);
    if (named) return { caller, keys: [named] };
    // A caller still on a version before key ids sends its own name as kid: any of its keys may have signed.
    return { caller, keys: kid === caller ? [...trusted.values()] : [] };
  }

  private remember(token: string, caller: string, expMs: number): void {
    if (this.#verified.size >= MAX_CACHED) {
      const now = this.now();
      for (const [t, v] of this.#verified) if (v.expMs + CLOCK_TOLERANCE_S * 1000 <= now) this.#verified.delete(t);
      if (this.#verified.size >= MAX_CACHED) this.#verified.clear();
    }
    this.#verified.set(token, { caller, expMs });
  }
}
