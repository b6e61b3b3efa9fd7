import { Code, ConnectError } from "@connectrpc/connect";
import type { CallerPolicy } from "./caller-policy";
import type { CallerVerifier } from "./caller-verifier";
import { SERVICE_TOKEN_HEADER } from "./service-identity";

/** Who may call what on one process: the verifier of service tokens and the allow-list per method. */
export interface CallerCheck {
  readonly verifier: CallerVerifier;
  readonly policy: CallerPolicy;
}

/** The caller recorded for procedures that ask no token (health, operator services), and when identity is off. */
export const ANONYMOUS = "anonymous";

/**
 * The caller of one request, or a refusal: Unauthenticated when the token is missing or invalid,
 * PermissionDenied when a valid caller may not call this method. Synchronous for a token already
 * verified, so the common call pays a header read and two map lookups.
 */
export function authorize(check: CallerCheck, typeName: string, procedure: string, header: Headers): string | Promise<string> {
  if (check.policy.isOpen(typeName)) return ANONYMOUS;
  const token = header.get(SERVICE_TOKEN_HEADER);
  if (token === null) throw unauthenticated();
  const caller = check.verifier.cached(token);
  if (caller !== undefined) return permit(check, procedure, caller);
  return check.verifier.verify(token).then((verified) => {
    if (verified === undefined) throw unauthenticated();
    return permit(check, procedure, verified);
  });
}

function permit(check: CallerCheck, procedure: string, caller: string): string {
  if (!check.policy.allows(procedure, caller)) throw new ConnectError(`${caller} may not call ${procedure}`, Code.PermissionDenied);
  return caller;
}

function unauthenticated(): ConnectError {
  return new ConnectError("a valid service token is required", Code.Unauthenticated);
}
