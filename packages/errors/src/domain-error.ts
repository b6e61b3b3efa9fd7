/**
 * The kinds of failure a domain can report, named after the canonical status codes but free of any
 * transport. The RPC edge maps each kind to one Connect code (@tawsil/rpc withDomainErrors); the
 * reason says which failure of that kind it was.
 */
export type ErrorKind =
  | "invalid-argument"
  | "unauthenticated"
  | "permission-denied"
  | "not-found"
  | "already-exists"
  | "failed-precondition"
  | "aborted"
  | "unavailable";

/**
 * What can go wrong in a domain, independent of transport. A service's own failures extend this
 * with a reason and one of the kinds; the common ones are in ./common-errors.
 */
export abstract class DomainError extends Error {
  /** SCREAMING_SNAKE_CASE, stable: callers branch on it. */
  abstract readonly reason: string;
  /** Decides the status the caller sees. */
  abstract readonly kind: ErrorKind;
}
