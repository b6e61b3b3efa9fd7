import type { KeyObject } from "node:crypto";
import { jwtVerify, type JWTHeaderParameters } from "jose";

/** A token longer than this is no token of ours: refused before any parsing. */
const MAX_TOKEN_LENGTH = 1024;
/** Clocks of two pods may disagree by this much. */
const CLOCK_TOLERANCE_S = 10;
/** Verified tokens kept; each caller replica brings a new one per minute, so this is never reached in steady state. */
const MAX_CACHED = 4096;

/**
 * Verifies the service tokens a process receives: EdDSA signed by the key configured for the
 * caller the token names (kid = iss = sub), for this process (aud), not expired. A verified token
 * is remembered until it expires, so a caller's calls after its first cost one map lookup.
 */
export class CallerVerifier {
  readonly #verified = new Map<string, { readonly caller: string; readonly expMs: number }>();

  constructor(
    readonly self: string,
    private readonly keys: ReadonlyMap<string, KeyObject>,
    private readonly now: () => number = Date.now,
  ) {}

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
    try {
      const { payload, protectedHeader } = await jwtVerify(token, (header: JWTHeaderParameters) => this.keyOf(header), {
        algorithms: ["EdDSA"],
        audience: this.self,
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.now()),
        requiredClaims: ["iss", "sub", "exp", "iat"],
      });
      const caller = protectedHeader.kid;
      if (caller === undefined || payload.sub !== caller || payload.iss !== caller || payload.exp === undefined) return undefined;
      this.remember(token, caller, payload.exp * 1000);
      return caller;
    } catch {
      return undefined;
    }
  }

  private keyOf(header: JWTHeaderParameters): KeyObject {
    const key = header.kid === undefined ? undefined : this.keys.get(header.kid);
    if (key === undefined) throw new Error("unknown caller");
    return key;
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
