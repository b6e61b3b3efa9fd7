import type { KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import { keyIdOf } from "./key-id";

/** The header every service-to-service call carries its service token in. */
export const SERVICE_TOKEN_HEADER = "tawsil-service-token";

/** A token lives a minute: long enough to be signed once per callee and minute, short enough to expire a stolen one. */
export const TOKEN_LIFETIME_S = 60;
/** Renewed this long before it expires, in the background, so a call never waits for a signature. */
const RENEW_BEFORE_MS = 20_000;
/** Not sent once this close to its expiry: a slow call or a callee's clock would see it expired. */
const STALE_BEFORE_MS = 5_000;

interface Token {
  readonly token: string;
  readonly renewAtMs: number;
  readonly staleAtMs: number;
}

/**
 * A process's identity as a caller: its name and its own Ed25519 key. It signs one short-lived token
 * per callee (aud = callee, sub = iss = this process, kid = its key's id) and reuses it for every
 * call until it is due for renewal; the create path signs nothing per request. The kid lets a
 * callee that trusts several keys of this caller (a rotation under way) pick the right one.
 */
export class ServiceIdentity {
  readonly #tokens = new Map<string, Token>();
  readonly #signing = new Map<string, Promise<string>>();
  /** The kid of its tokens: the id of the key this process signs with (keyIdOf), or its name (SERVICE_IDENTITY_TOKEN_KID). */
  readonly kid: string;

  constructor(
    readonly name: string,
    private readonly key: KeyObject,
    private readonly now: () => number = Date.now,
    kid: "key" | "name" = "key",
  ) {
    this.kid = kid === "key" ? keyIdOf(key) : name;
  }

  /** The token to send to `audience`: the cached one when it is fresh, else a new signature. */
  tokenFor(audience: string): string | Promise<string> {
    const cached = this.#tokens.get(audience);
    if (cached !== undefined) {
      const now = this.now();
      if (now < cached.renewAtMs) return cached.token;
      if (now < cached.staleAtMs) {
        // Still good for a few seconds: send it, and have the next one ready.
        this.sign(audience).catch(() => undefined);
        return cached.token;
      }
    }
    return this.sign(audience);
  }

  /** Signs a token for `audience`; concurrent callers share one signature. */
  sign(audience: string): Promise<string> {
    const pending = this.#signing.get(audience);
    if (pending) return pending;
    const issuedAt = this.now();
    const signing = new SignJWT({})
      .setProtectedHeader({ alg: "EdDSA", kid: this.kid, typ: "JWT" })
      .setIssuer(this.name)
      .setSubject(this.name)
      .setAudience(audience)
      .setIssuedAt(Math.floor(issuedAt / 1000))
      .setExpirationTime(Math.floor(issuedAt / 1000) + TOKEN_LIFETIME_S)
      .sign(this.key)
      .then((token) => {
        const expMs = (Math.floor(issuedAt / 1000) + TOKEN_LIFETIME_S) * 1000;
        this.#tokens.set(audience, { token, renewAtMs: expMs - RENEW_BEFORE_MS, staleAtMs: expMs - STALE_BEFORE_MS });
        return token;
      })
      .finally(() => this.#signing.delete(audience));
    this.#signing.set(audience, signing);
    return signing;
  }
}

/** The callee a client of `typeName` (tawsil.<service>.v1.<Name>) talks to: the audience of its tokens. */
export function audienceOf(typeName: string): string {
  const service = /^tawsil\.([a-z]+)\.v\d+\./.exec(typeName)?.[1];
  if (!service) throw new Error(`${typeName} is not a Tawsil service`);
  return service;
}
