import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorReasonSchema, FieldViolationsSchema, RetryDelaySchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { violationMessage, type ViolationCode } from "../validation/violation-messages";
import type { Localized, ProblemCode } from "./catalogue";
import { ProblemError } from "./problem-error";

/** The stable reason a service attached to its error, if any. */
export function reasonOf(error: ConnectError): string | undefined {
  return error.findDetails(ErrorReasonSchema)[0]?.reason;
}

const simple = (code: ProblemCode, detail: Localized, headers?: Record<string, string>) => () =>
  new ProblemError(code, detail, headers ? { headers } : {});

/**
 * A driver's proof of delivery is refused by the shipment service and passed on by dispatch
 * unchanged (decisions.md section 17): its fields in the driver API's names, wherever it arrives.
 */
const PROOF_FIELDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^delivery_pin$/, "deliveryPin"],
  [/^cod_collected$/, "codCollected"],
  [/^evidence_media_asset_ids(\[\d+\])?$/, "evidenceMediaAssetIds$1"],
];

export function proofFieldOf(field: string): string {
  for (const [pattern, name] of PROOF_FIELDS) if (pattern.test(field)) return field.replace(pattern, name);
  return field;
}

/**
 * Violations a service found, worded here in both languages from their codes and params, on the
 * fields `fieldOf` names (a route that knows the request's shape maps the service's own names).
 */
export function violationsProblem(error: ConnectError, fieldOf: (field: string) => string = proofFieldOf): ProblemError {
  const violations = (error.findDetails(FieldViolationsSchema)[0]?.violations ?? []).map((v) => {
    const { entity, exclusive, ...params } = v.params;
    const rule = entity ? { en: `does not name a known ${entity}`, ar: `لا يشير إلى ${ENTITY_AR[entity] ?? entity} معروف` } : undefined;
    const message = violationMessage(v.code as ViolationCode, { ...params, exclusive: exclusive === "true", ...(rule ? { rule } : {}) });
    return { field: fieldOf(v.field), code: v.code, message };
  });
  return new ProblemError("VALIDATION_FAILED", { en: "The request breaks the rules listed in violations.", ar: "الطلب يخالف القواعد المذكورة في violations." }, { violations });
}

const ENTITY_AR: Record<string, string> = { "saved location": "موقع محفوظ", branch: "فرع", "media asset": "ملف وسائط جاهز وغير مرفق" };

/** Domain outcomes the services report by reason, as the contract's problems. */
const BY_REASON: Record<string, (error: ConnectError) => ProblemError> = {
  VALIDATION_FAILED: (error) => violationsProblem(error),
  SHIPMENT_NOT_FOUND: simple("SHIPMENT_NOT_FOUND", { en: "No shipment has this id.", ar: "لا توجد شحنة بهذا المعرّف." }),
  ACCESS_DENIED: simple("ACCESS_DENIED", { en: "This resource belongs to another merchant.", ar: "هذا المورد يخص تاجرًا آخر." }),
  TRACKING_LINK_NOT_FOUND: simple("TRACKING_LINK_NOT_FOUND", { en: "No shipment is tracked by this link.", ar: "لا توجد شحنة تُتتبّع بهذا الرابط." }),
  TRACKING_LINK_EXPIRED: simple("TRACKING_LINK_EXPIRED", {
    en: "This tracking link expired 7 days after the delivery ended.",
    ar: "انتهت صلاحية رابط التتبع هذا بعد 7 أيام من انتهاء التوصيل.",
  }),
  MEDIA_ASSET_NOT_FOUND: simple("MEDIA_ASSET_NOT_FOUND", { en: "No media asset has this id.", ar: "لا يوجد ملف وسائط بهذا المعرّف." }),
  MEDIA_REJECTED: simple("MEDIA_REJECTED", {
    en: "The bytes do not match the declared contentType and sizeBytes, or the image does not decode; nothing was kept.",
    ar: "المحتوى لا يطابق contentType وsizeBytes المعلنين، أو تعذّر فك ترميز الصورة؛ لم يُحتفظ بشيء.",
  }),
  MEDIA_NOT_UPLOADABLE: simple("MEDIA_REJECTED", {
    en: "The asset's content was already uploaded and accepted; it cannot be replaced.",
    ar: "سبق رفع محتوى هذا الملف وقبوله؛ ولا يمكن استبداله.",
  }),
  // The driver API (dispatch's DriverService). Another driver's job is reported as NOT_ASSIGNED:
  // to the driver it is a job that does not exist.
  OFFER_NOT_FOUND: simple("OFFER_NOT_FOUND", { en: "You have no offer with this id.", ar: "ليس لديك عرض بهذا المعرّف." }),
  NOT_ASSIGNED: simple("JOB_NOT_FOUND", { en: "You carry no shipment with this id.", ar: "لا تحمل شحنة بهذا المعرّف." }),
  OFFER_NOT_OPEN: simple("OFFER_NOT_OPEN", { en: "The offer is no longer open: it expired, was declined or was withdrawn.", ar: "لم يعد العرض متاحًا: انتهت صلاحيته أو رُفض أو سُحب." }),
  STEP_NOT_ALLOWED: simple("STEP_NOT_ALLOWED", { en: "The shipment's state does not allow this step now.", ar: "حالة الشحنة لا تسمح بهذه الخطوة الآن." }),
  // A token of a driver dispatch does not know (removed since it was issued): it may act on nothing.
  DRIVER_NOT_FOUND: simple("ACCESS_DENIED", { en: "This driver account cannot act.", ar: "لا يمكن لحساب السائق هذا التصرف." }),
  MERCHANT_NOT_ACTIVE: simple("MERCHANT_NOT_ACTIVE", { en: "The merchant account is not active.", ar: "حساب التاجر غير نشط." }),
  INVALID_CURSOR: simple("INVALID_CURSOR", { en: "The cursor does not belong to this query.", ar: "المؤشر لا ينتمي إلى هذا الاستعلام." }),
  UNSUPPORTED_CURRENCY: simple("UNSUPPORTED_CURRENCY", { en: "Only SAR is supported.", ar: "العملة المدعومة هي الريال السعودي فقط." }),
  IDEMPOTENCY_KEY_REUSED: simple("IDEMPOTENCY_KEY_REUSED", {
    en: "This Idempotency-Key was used with a different request.",
    ar: "استُخدم مفتاح عدم التكرار هذا مع طلب مختلف.",
  }),
  IDEMPOTENCY_KEY_IN_USE: simple(
    "IDEMPOTENCY_KEY_IN_USE",
    { en: "A request with this Idempotency-Key is still in progress; retry shortly.", ar: "ما زال طلب بمفتاح عدم التكرار هذا قيد التنفيذ؛ أعد المحاولة بعد قليل." },
    { "retry-after": "1" },
  ),
  DUPLICATE_REFERENCE: simple("DUPLICATE_REFERENCE", {
    en: "A shipment with this reference already exists for this merchant.",
    ar: "توجد شحنة بهذا المرجع لدى هذا التاجر مسبقًا.",
  }),
  // The hold's remaining time comes from the service that holds it (decisions.md section 17).
  DELIVERY_PIN_LOCKED: (error) =>
    new ProblemError(
      "DELIVERY_PIN_LOCKED",
      { en: "Five wrong delivery PINs: the delivery of this job is held; retry after Retry-After seconds.", ar: "خمسة رموز تسليم خاطئة: أُوقف تسليم هذه المهمة؛ أعد المحاولة بعد عدد الثواني في Retry-After." },
      { headers: { "retry-after": String(Math.max(1, Number(error.findDetails(RetryDelaySchema)[0]?.seconds ?? 600n))) } },
    ),
  SHIPMENT_ALREADY_ASSIGNED: simple("SHIPMENT_ALREADY_ASSIGNED", {
    en: "A driver offer or assignment exists; the shipment can no longer be cancelled.",
    ar: "يوجد عرض أو إسناد لسائق؛ لم يعد بالإمكان إلغاء الشحنة.",
  }),
  SHIPMENT_NOT_CANCELLABLE: simple("SHIPMENT_NOT_CANCELLABLE", {
    en: "The shipment is in a final state and cannot be cancelled.",
    ar: "الشحنة في حالة نهائية ولا يمكن إلغاؤها.",
  }),
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
 * `Retry-After` of every 503 for a dependency that is unavailable: the gateway asks a down service's
 * health every second and lets calls through the moment it answers, so two seconds is the soonest a
 * retry can usefully come; clients add their own backoff and jitter beyond it.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/**
 * The one place Connect errors become problems. A service that is down or slow is a 503 (the
 * operation failed closed; retry with backoff); anything a route did not map itself is our bug,
 * answered as a bare 500 by the error handler.
 */
export function problemFromConnect(error: unknown): ProblemError | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  // Reasons are unique across services, so the reason alone names the problem.
  const byReason = BY_REASON[reasonOf(error) ?? ""];
  if (byReason) return byReason(error);
  // Canceled or Aborted with no reason of ours is the transport's: the peer died or reset the
  // connection mid-call (the fault suite SIGKILLs services). An outage like any other, so a 503
  // the client retries, not a 500.
  const transport = (error.code === Code.Canceled || error.code === Code.Aborted) && reasonOf(error) === undefined;
  switch (transport ? Code.Unavailable : error.code) {
    case Code.Unavailable:
    case Code.DeadlineExceeded:
    case Code.ResourceExhausted:
      return new ProblemError(
        "SERVICE_UNAVAILABLE",
        { en: "A dependency is unavailable; retry with exponential backoff.", ar: "إحدى الخدمات غير متاحة مؤقتًا؛ أعد المحاولة مع تأخير متزايد." },
        { headers: { "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS) } },
      );
    default:
      return undefined;
  }
}
