import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorReasonSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { ProblemError } from "./problem-error";

/** The stable reason a service attached to its error, if any. */
export function reasonOf(error: ConnectError): string | undefined {
  return error.findDetails(ErrorReasonSchema)[0]?.reason;
}

/** Domain outcomes the services report by reason, as the contract's problems. */
const BY_REASON: Record<string, () => ProblemError> = {
  OUTSIDE_COVERAGE: () =>
    new ProblemError("OUTSIDE_COVERAGE", {
      en: "Pickup and destination must both lie in the service area of one city.",
      ar: "يجب أن يقع موقع الاستلام والوجهة ضمن نطاق خدمة مدينة واحدة.",
    }),
  CITY_MISMATCH: () =>
    new ProblemError("CITY_MISMATCH", {
      en: "The destination city code does not match the city of the destination coordinates.",
      ar: "رمز مدينة الوجهة لا يطابق المدينة التي تقع فيها إحداثيات الوجهة.",
    }),
  NO_ELIGIBLE_SERVICE: () =>
    new ProblemError("NO_ELIGIBLE_SERVICE", {
      en: "No delivery service can carry this shipment in this city.",
      ar: "لا توجد خدمة توصيل تستطيع نقل هذه الشحنة في هذه المدينة.",
    }),
  NO_RATE_CARD: () =>
    new ProblemError("NO_ELIGIBLE_SERVICE", {
      en: "No commercial terms are agreed for this merchant yet; contact Tawsil.",
      ar: "لم يتم الاتفاق على شروط تجارية لهذا التاجر بعد؛ تواصل مع توصيل.",
    }),
};

/**
 * The one place Connect errors become problems. A service that is down or slow is a 503 (the
 * operation failed closed; retry with backoff); anything a route did not map itself is our bug,
 * answered as a bare 500 by the error handler.
 */
export function problemFromConnect(error: unknown): ProblemError | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  const byReason = BY_REASON[reasonOf(error) ?? ""];
  if (byReason && error.code === Code.FailedPrecondition) return byReason();
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
