import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { DomainError, ValidationError } from "../domain/errors";

/** The one place domain errors become Connect codes; the reason travels as a typed ErrorReason detail. */
function codeOf(error: DomainError): Code {
  if (error instanceof ValidationError) return Code.InvalidArgument;
  return Code.Internal;
}

export function toConnectError(error: unknown): unknown {
  if (!(error instanceof DomainError)) return error; // the RPC edge logs it and answers a bare Internal
  return new ConnectError(error.message, codeOf(error), undefined, [{ desc: ErrorReasonSchema, value: { reason: error.reason } }]);
}

type Unary = (request: never, context: never) => unknown;

/** Wraps every method of a unary service implementation so domain errors leave as Connect errors. */
export function withDomainErrors<T extends { [K in keyof T]: Unary }>(impl: T): T {
  const wrapped: Record<string, Unary> = {};
  for (const [name, method] of Object.entries<Unary>(impl)) {
    wrapped[name] = async (request, context) => {
      try {
        return await method(request, context);
      } catch (error) {
        throw toConnectError(error);
      }
    };
  }
  return wrapped as T;
}
