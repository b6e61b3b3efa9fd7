import { decodeProtectedHeader, errors, jwtVerify } from "jose";
import type { Principal } from "./principal";
import type { Revocations } from "./revocations";
import type { SigningKeys } from "./signing-keys";
import { isUuid } from "@tawsil/domain";

/** Any reason a bearer token is not accepted; all are answered alike (401 invalid_token). */
export class InvalidTokenError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "InvalidTokenError";
  }
}

const MAX_CACHED = 10_000;

/** The header type the merchant service signs access tokens with (RFC 9068 section 2.1). */
export const ACCESS_TOKEN_TYPE = "at+jwt";

/**
 * Verifies access tokens locally: ES256 only, the issuer's `typ` and a `kid` in the header, this
 * environment's issuer and audience, exp/nbf/iat within the allowed skew, the claims we rely on
 * present and well-formed. A verified token is
 * remembered until it expires, so a merchant's repeated calls cost one map lookup.
 */
export class TokenVerifier {
  readonly #cache = new Map<string, Principal>();

  constructor(
    private readonly keys: SigningKeys,
    private readonly expect: { issuer: string; audience: string; driverAudience: string; clockSkewSeconds: number },
    private readonly revocations?: Revocations,
  ) {}

  async verify(token: string): Promise<Principal> {
    const principal = await this.#verifiedOrCached(token);
    // Asked on every request, cached or not: a revocation applies from the moment it is heard of.
    if (this.revocations?.revoked(principal)) throw new InvalidTokenError("revoked");
    return principal;
  }

  async #verifiedOrCached(token: string): Promise<Principal> {
    const now = Date.now() / 1000;
    const cached = this.#cache.get(token);
    if (cached) {
      if (now <= cached.expiresAt + this.expect.clockSkewSeconds) return cached;
      this.#cache.delete(token);
    }
    const principal = await this.#verifyJws(token);
    this.#remember(token, principal);
    return principal;
  }

  async #verifyJws(token: string): Promise<Principal> {
    const options = {
      algorithms: ["ES256"],
      issuer: this.expect.issuer,
      // Either audience verifies; which one it is decides the kind of principal, and routes admit one kind.
      audience: [this.expect.audience, this.expect.driverAudience],
      clockTolerance: this.expect.clockSkewSeconds,
      requiredClaims: ["exp", "iat", "sub", "jti"],
      // Without this a JWT of another kind signed by the same key (an ID token, say) would pass.
      typ: ACCESS_TOKEN_TYPE,
    };
    requireKeyId(token);
    let payload;
    try {
      ({ payload } = await jwtVerify(token, await this.keys.resolver(), options));
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw invalid(error);
      await this.keys.refreshForUnknownKid();
      try {
        ({ payload } = await jwtVerify(token, await this.keys.resolver(), options));
      } catch (retryError) {
        throw invalid(retryError);
      }
    }
    const { sub, aud, merchant_id: merchantId, driver_id: driverId, scope, exp, iat } = payload as Record<string, unknown>;
    if (typeof sub !== "string" || typeof scope !== "string" || typeof exp !== "number" || typeof iat !== "number") {
      throw new InvalidTokenError("claims missing or malformed");
    }
    const facts = { clientId: sub, scopes: new Set(scope.split(" ").filter(Boolean)), expiresAt: exp, issuedAt: iat };
    // A token names exactly one audience: both, or a driver's audience with a merchant, is no token we issue.
    const audiences = Array.isArray(aud) ? aud : [aud];
    const forDriver = audiences.includes(this.expect.driverAudience);
    if (forDriver) {
      if (audiences.length !== 1 || merchantId !== undefined || typeof driverId !== "string" || !isUuid(driverId)) throw new InvalidTokenError("driver claims missing or malformed");
      return { kind: "driver", driverId: driverId.toLowerCase(), merchantId: "", ...facts };
    }
    if (driverId !== undefined || typeof merchantId !== "string" || !isUuid(merchantId)) throw new InvalidTokenError("claims missing or malformed");
    return { kind: "merchant", merchantId, ...facts };
  }

  #remember(token: string, principal: Principal): void {
    if (this.#cache.size >= MAX_CACHED) {
      // Map iteration is insertion order: drop the oldest entry.
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    this.#cache.set(token, principal);
  }
}

/**
 * Every token the issuer signs names its key. Without a kid, jose would try the only key of a
 * one-key set, so a token missing it could pass today and fail after the next rotation: refuse it.
 */
function requireKeyId(token: string): void {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw new InvalidTokenError("header malformed");
  }
  if (typeof kid !== "string" || kid === "") throw new InvalidTokenError("kid missing");
}

function invalid(cause: unknown): InvalidTokenError {
  if (cause instanceof errors.JOSEError) return new InvalidTokenError(cause.code);
  // Not a verification outcome (e.g. the key refresh failed): let it surface as 503/500.
  throw cause;
}
