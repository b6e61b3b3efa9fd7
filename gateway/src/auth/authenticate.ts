import type { FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { ProblemError } from "../problem/problem-error";
import type { DRIVER_SCOPE, Principal, Scope } from "./principal";
import { InvalidTokenError, type TokenVerifier } from "./token-verifier";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

/** RFC 6750 section 3: the bare challenge when no credentials were sent... */
const CHALLENGE_NONE = 'Bearer realm="tawsil"';
/** ...and the one naming the error when a token was sent and refused. */
const CHALLENGE_INVALID = 'Bearer realm="tawsil", error="invalid_token"';
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const MAX_TOKEN_LENGTH = 4096;

function unauthenticated(challenge: string, detail: { en: string; ar: string }): ProblemError {
  return new ProblemError("AUTHENTICATION_REQUIRED", detail, { headers: { "www-authenticate": challenge } });
}

const WRONG_KIND = {
  merchant: { en: "A driver's access token does not open merchant routes.", ar: "رمز وصول السائق لا يفتح مسارات التاجر." },
  driver: { en: "Driver routes need a driver's access token.", ar: "مسارات السائق تتطلب رمز وصول سائق." },
} as const;

/**
 * An onRequest hook that admits a request only with a valid access token of the `kind` the route
 * serves (a merchant's token on a driver route, or the reverse, is 403), holding `scope` (any
 * valid token of that kind when scope is undefined), and records who is calling on `request.principal`.
 */
export function authenticate(verifier: TokenVerifier, scope: Scope | typeof DRIVER_SCOPE | undefined, kind: Principal["kind"] = "merchant"): onRequestAsyncHookHandler {
  return async function (this: unknown, request: FastifyRequest) {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === "") {
      throw unauthenticated(CHALLENGE_NONE, { en: "Send an access token: Authorization: Bearer <token>.", ar: "أرسل رمز الوصول في الترويسة Authorization: Bearer <token>." });
    }
    const match = header.length <= MAX_TOKEN_LENGTH + 16 ? BEARER.exec(header) : null;
    if (!match?.[1]) {
      throw unauthenticated(CHALLENGE_INVALID, { en: "The Authorization header is not a bearer token.", ar: "ترويسة Authorization لا تحمل رمز وصول من نوع Bearer." });
    }
    let principal: Principal;
    try {
      principal = await verifier.verify(match[1]);
    } catch (error) {
      if (!(error instanceof InvalidTokenError)) throw error;
      throw unauthenticated(CHALLENGE_INVALID, { en: "The access token is invalid or expired.", ar: "رمز الوصول غير صالح أو منتهي الصلاحية." });
    }
    request.principal = principal;
    if (principal.kind !== kind) throw new ProblemError("ACCESS_DENIED", WRONG_KIND[kind]);
    if (scope && !principal.scopes.has(scope)) {
      throw new ProblemError(
        "ACCESS_DENIED",
        { en: `The access token lacks the scope ${scope}.`, ar: `رمز الوصول لا يتضمن الصلاحية ${scope}.` },
        { headers: { "www-authenticate": `Bearer realm="tawsil", error="insufficient_scope", scope="${scope}"` } },
      );
    }
  };
}
