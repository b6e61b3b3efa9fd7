import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { ProblemError } from "./problem-error";

/** The stable reason a service attached to its error, if any. */
export function reasonOf(error: ConnectError): string | undefined {
  return error.findDetails(ErrorReasonSchema)[0]?.reason;
}

/**
 * The one place Connect errors become problems. A service that is down or slow is a 503 (the
 * operation failed closed; retry with backoff); anything a route did not map itself is our bug,
 * answered as a bare 500 by the error handler.
 */
export function problemFromConnect(error: unknown): ProblemError | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  switch (error.code) {
    case Code.Unavailable:
    case Code.DeadlineExceeded:
    case Code.ResourceExhausted:
      return new ProblemError("SERVICE_UNAVAILABLE", {
        en: "A dependency is unavailable; retry with exponential backoff.",
        ar: "إحدى الخدمات غير متاحة مؤقتًا؛ أعد المحاولة مع تأخير متزايد.",
      });
    default:
      return undefined;
  }
}
