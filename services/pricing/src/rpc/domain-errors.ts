import { Code, ConnectError } from "@connectrpc/connect";
import type { Logger } from "@tawsil/logging";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { DependencyUnavailableError, DomainError, FailedPreconditionError, ValidationError } from "../domain/errors";

/** The one place domain errors become Connect codes; the reason travels as a typed ErrorReason detail. */
function codeOf(error: DomainError): Code {
  if (error instanceof ValidationError) return Code.InvalidArgument;
  if (error instanceof FailedPreconditionError) return Code.FailedPrecondition;
  if (error instanceof DependencyUnavailableError) return Code.Unavailable;
  return Code.Internal;
}

export function toConnectError(error: unknown, logger: Logger): unknown {
  if (!(error instanceof DomainError)) return error; // the RPC edge logs it and answers a bare Internal
  // An outage's cause (a peer's error, a timeout) is for operators: logged here, never sent.
  if (error instanceof DependencyUnavailableError) logger.warn({ err: error.cause, reason: error.reason }, error.message);
  return new ConnectError(error.message, codeOf(error), undefined, [{ desc: ErrorReasonSchema, value: { reason: error.reason } }]);
}

type Unary = (request: never, context: never) => unknown;

/** Wraps every method of a unary service implementation so domain errors leave as Connect errors. */
export function withDomainErrors<T extends { [K in keyof T]: Unary }>(logger: Logger, impl: T): T {
  const wrapped: Record<string, Unary> = {};
  for (const [name, method] of Object.entries<Unary>(impl)) {
    wrapped[name] = async (request, context) => {
      try {
        return await method(request, context);
      } catch (error) {
        throw toConnectError(error, logger);
      }
    };
  }
  return wrapped as T;
}
