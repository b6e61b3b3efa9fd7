import { Code, ConnectError } from "@connectrpc/connect";
import { DomainError, type ErrorKind } from "@tawsil/errors";
import type { Logger } from "@tawsil/logging";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";

/** Every kind's Connect code; total over ErrorKind, so a new kind cannot leave unmapped. */
const CODE_OF: Record<ErrorKind, Code> = {
  "invalid-argument": Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  "permission-denied": Code.PermissionDenied,
  "not-found": Code.NotFound,
  "already-exists": Code.AlreadyExists,
  "failed-precondition": Code.FailedPrecondition,
  aborted: Code.Aborted,
  unavailable: Code.Unavailable,
};

/** A typed detail of a Connect error (the type connect-es takes but does not export). */
type OutgoingDetail = NonNullable<ConstructorParameters<typeof ConnectError>[3]>[number];

export interface DomainErrorOptions {
  /**
   * Where the cause of an `unavailable` error (a peer's error, a timeout) is logged, at warn: it is
   * for operators and never sent. Services that cannot report an outage may leave it out.
   */
  readonly logger?: Logger;
  /** Typed details a service sends after the ErrorReason for some of its errors (e.g. FieldViolations). */
  readonly details?: (error: DomainError) => readonly OutgoingDetail[];
}

/**
 * The one place domain errors become Connect codes; the reason travels as a typed ErrorReason
 * detail. Anything else passes through: the server's edge logs it and answers a bare Internal.
 */
export function toConnectError(error: unknown, opts: DomainErrorOptions = {}): unknown {
  if (!(error instanceof DomainError)) return error;
  if (error.kind === "unavailable") opts.logger?.warn({ err: error.cause, reason: error.reason }, error.message);
  const details: OutgoingDetail[] = [{ desc: ErrorReasonSchema, value: { reason: error.reason } }, ...(opts.details?.(error) ?? [])];
  return new ConnectError(error.message, CODE_OF[error.kind], undefined, details);
}

type Unary = (request: never, context: never) => unknown;

/** Wraps every method of a unary service implementation so domain errors leave as Connect errors. */
export function withDomainErrors<T extends { [K in keyof T]: Unary }>(impl: T, opts: DomainErrorOptions = {}): T {
  const wrapped: Record<string, Unary> = {};
  for (const [name, method] of Object.entries<Unary>(impl)) {
    wrapped[name] = async (request, context) => {
      try {
        return await method(request, context);
      } catch (error) {
        throw toConnectError(error, opts);
      }
    };
  }
  return wrapped as T;
}
