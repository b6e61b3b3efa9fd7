import { Code, ConnectError } from "@connectrpc/connect";
import { DependencyUnavailableError } from "@tawsil/errors";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";

/** Codes that mean the peer could not answer now (down, slow, overloaded, or failing inside). */
const OUTAGE = new Set([Code.Unavailable, Code.DeadlineExceeded, Code.ResourceExhausted, Code.Aborted, Code.Canceled, Code.Internal, Code.Unknown, Code.DataLoss]);

/** The reason detail of a peer's Connect error, if it carried one. */
export function peerReason(error: ConnectError): string | undefined {
  return error.findDetails(ErrorReasonSchema)[0]?.reason;
}

/** A NotFound answer of a peer (the adapters turn it into "unknown"). */
export function isNotFound(error: unknown): boolean {
  return error instanceof ConnectError && error.code === Code.NotFound;
}

/**
 * What a failed peer call becomes once the adapter has handled the answers it expects: an outage
 * is DependencyUnavailableError (503 at the gateway, fail closed); any other code means the two
 * services disagree about the contract, a bug surfaced as a bare Internal error with the cause
 * logged. The peer's own message and details never travel further.
 */
export function peerFailure(error: unknown, dependency: string): Error {
  const connect = ConnectError.from(error);
  if (OUTAGE.has(connect.code)) return new DependencyUnavailableError(dependency, { cause: connect });
  return new Error(`${dependency} answered ${Code[connect.code]}`, { cause: connect });
}
