/** A localized text: English is the default, Arabic is served for `Accept-Language: ar`. */
export interface Localized {
  readonly en: string;
  readonly ar: string;
}

export interface ProblemKind {
  readonly status: number;
  readonly title: Localized;
}

/** Every problem code the gateway can answer with (decisions.md section 12), with its status. */
export const PROBLEMS = {
  MALFORMED_REQUEST: { status: 400, title: { en: "Malformed request", ar: "طلب غير صالح البنية" } },
  INVALID_PARAMETER: { status: 400, title: { en: "Invalid parameter", ar: "معامل غير صالح" } },
  INVALID_CURSOR: { status: 400, title: { en: "Invalid cursor", ar: "مؤشر الصفحة غير صالح" } },
  AUTHENTICATION_REQUIRED: { status: 401, title: { en: "Authentication required", ar: "المصادقة مطلوبة" } },
  ACCESS_DENIED: { status: 403, title: { en: "Access denied", ar: "تم رفض الوصول" } },
  MERCHANT_NOT_ACTIVE: { status: 403, title: { en: "Merchant not active", ar: "التاجر غير نشط" } },
  SHIPMENT_NOT_FOUND: { status: 404, title: { en: "Shipment not found", ar: "الشحنة غير موجودة" } },
  WEBHOOK_NOT_FOUND: { status: 404, title: { en: "Webhook not found", ar: "الويب هوك غير موجود" } },
  TRACKING_LINK_NOT_FOUND: { status: 404, title: { en: "Tracking link not found", ar: "رابط التتبع غير موجود" } },
  MEDIA_ASSET_NOT_FOUND: { status: 404, title: { en: "Media asset not found", ar: "ملف الوسائط غير موجود" } },
  OFFER_NOT_FOUND: { status: 404, title: { en: "Offer not found", ar: "العرض غير موجود" } },
  JOB_NOT_FOUND: { status: 404, title: { en: "Job not found", ar: "المهمة غير موجودة" } },
  RESOURCE_NOT_FOUND: { status: 404, title: { en: "Resource not found", ar: "المورد غير موجود" } },
  METHOD_NOT_ALLOWED: { status: 405, title: { en: "Method not allowed", ar: "الطريقة غير مسموح بها" } },
  SHIPMENT_ALREADY_ASSIGNED: { status: 409, title: { en: "Shipment already assigned", ar: "تم إسناد الشحنة مسبقًا" } },
  SHIPMENT_NOT_CANCELLABLE: { status: 409, title: { en: "Shipment not cancellable", ar: "لا يمكن إلغاء الشحنة" } },
  DUPLICATE_REFERENCE: { status: 409, title: { en: "Duplicate reference", ar: "المرجع مكرر" } },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, title: { en: "Idempotency key in use", ar: "مفتاح عدم التكرار قيد الاستخدام" } },
  DELIVERY_PIN_LOCKED: { status: 409, title: { en: "Delivery PIN locked", ar: "رمز التسليم مقفل" } },
  WEBHOOK_ALREADY_EXISTS: { status: 409, title: { en: "Webhook already exists", ar: "الويب هوك موجود مسبقًا" } },
  OFFER_NOT_OPEN: { status: 409, title: { en: "Offer not open", ar: "العرض لم يعد متاحًا" } },
  STEP_NOT_ALLOWED: { status: 409, title: { en: "Step not allowed", ar: "الخطوة غير مسموح بها" } },
  TRACKING_LINK_EXPIRED: { status: 410, title: { en: "Tracking link expired", ar: "انتهت صلاحية رابط التتبع" } },
  PRECONDITION_FAILED: { status: 412, title: { en: "Precondition failed", ar: "فشل الشرط المسبق" } },
  PAYLOAD_TOO_LARGE: { status: 413, title: { en: "Payload too large", ar: "حجم الطلب كبير جدًا" } },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: { en: "Unsupported media type", ar: "نوع المحتوى غير مدعوم" } },
  VALIDATION_FAILED: { status: 422, title: { en: "Validation failed", ar: "فشل التحقق من صحة البيانات" } },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: { en: "Idempotency key reused", ar: "أعيد استخدام مفتاح عدم التكرار" } },
  OUTSIDE_COVERAGE: { status: 422, title: { en: "Outside coverage", ar: "خارج نطاق التغطية" } },
  CITY_MISMATCH: { status: 422, title: { en: "City mismatch", ar: "المدينة غير مطابقة" } },
  NO_ELIGIBLE_SERVICE: { status: 422, title: { en: "No eligible service", ar: "لا توجد خدمة مؤهلة" } },
  UNSUPPORTED_CURRENCY: { status: 422, title: { en: "Unsupported currency", ar: "العملة غير مدعومة" } },
  MEDIA_REJECTED: { status: 422, title: { en: "Media rejected", ar: "رُفض ملف الوسائط" } },
  PRECONDITION_REQUIRED: { status: 428, title: { en: "Precondition required", ar: "الشرط المسبق مطلوب" } },
  RATE_LIMITED: { status: 429, title: { en: "Too many requests", ar: "طلبات كثيرة جدًا" } },
  INTERNAL_ERROR: { status: 500, title: { en: "Internal error", ar: "خطأ داخلي" } },
  SERVICE_UNAVAILABLE: { status: 503, title: { en: "Service unavailable", ar: "الخدمة غير متاحة" } },
} as const satisfies Record<string, ProblemKind>;

export type ProblemCode = keyof typeof PROBLEMS;
