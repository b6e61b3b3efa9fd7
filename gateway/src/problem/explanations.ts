import type { Localized, ProblemCode } from "./catalogue";

export interface Explanation {
  /** What the problem means, for the merchant's developer who follows its `type` URL. */
  readonly meaning: Localized;
  /** What to change before sending the request again (or whether to send it again at all). */
  readonly fix: Localized;
}

/**
 * The page behind each problem's `type` (RFC 9457 section 3.1.1: a type URI should resolve to
 * documentation a person can read). One entry per code of the catalogue: a new code without its
 * explanation does not compile.
 */
export const EXPLANATIONS: Record<ProblemCode, Explanation> = {
  MALFORMED_REQUEST: {
    meaning: { en: "The request could not be read: its JSON is not valid, or its body is not UTF-8.", ar: "تعذّرت قراءة الطلب: صيغة JSON غير صالحة أو المحتوى ليس بترميز UTF-8." },
    fix: { en: "Send one JSON object encoded as UTF-8, with Content-Type: application/json. Do not resend the same bytes.", ar: "أرسل كائن JSON واحدًا بترميز UTF-8 مع الترويسة Content-Type: application/json. لا تُعِد إرسال البيانات نفسها." },
  },
  INVALID_PARAMETER: {
    meaning: { en: "A path parameter, query parameter or header breaks its rule (a shipment id that is not a uuid, a list limit outside 1 to 100, an unknown query parameter).", ar: "معامل في المسار أو الاستعلام أو ترويسة يخالف قاعدته (معرّف شحنة ليس uuid، أو حد قائمة خارج النطاق 1 إلى 100، أو معامل استعلام غير معروف)." },
    fix: { en: "Read detail and violations: each names a parameter and its rule. Correct every one, then send the request again.", ar: "اقرأ detail وviolations: كل منها يسمّي معاملًا وقاعدته. صحّحها جميعًا ثم أعد إرسال الطلب." },
  },
  INVALID_CURSOR: {
    meaning: { en: "The list cursor is malformed, was edited, or belongs to another query (other filters, another merchant).", ar: "مؤشر القائمة غير صالح البنية أو عُدّل أو يخص استعلامًا آخر (مرشحات أخرى أو تاجرًا آخر)." },
    fix: { en: "Pass page.nextCursor exactly as received, with the same filters as the request that returned it; to start over, omit cursor.", ar: "مرّر page.nextCursor كما استلمته تمامًا ومع المرشحات نفسها للطلب الذي أعاده؛ وللبدء من جديد احذف cursor." },
  },
  AUTHENTICATION_REQUIRED: {
    meaning: { en: "The bearer token is missing, malformed, expired or revoked.", ar: "رمز الوصول (Bearer) مفقود أو غير صالح البنية أو منتهي الصلاحية أو مُلغى." },
    fix: { en: "Get a new access token from POST /oauth/token with your client credentials and send it as Authorization: Bearer <token>. Tokens last one hour.", ar: "احصل على رمز وصول جديد من POST /oauth/token ببيانات عميلك وأرسله في الترويسة Authorization: Bearer <token>. صلاحية الرمز ساعة واحدة." },
  },
  ACCESS_DENIED: {
    meaning: { en: "The token lacks the scope this operation needs, or the resource belongs to another merchant.", ar: "الرمز لا يحمل الصلاحية التي تحتاجها هذه العملية، أو أن المورد يخص تاجرًا آخر." },
    fix: { en: "Use a client that holds the scope (shipments:read, shipments:write or webhooks:manage) and only ids of your own shipments. Retrying with the same token never succeeds.", ar: "استخدم عميلًا يملك الصلاحية (shipments:read أو shipments:write أو webhooks:manage) ومعرّفات شحناتك فقط. إعادة المحاولة بالرمز نفسه لن تنجح أبدًا." },
  },
  MERCHANT_NOT_ACTIVE: {
    meaning: { en: "Your merchant account is not active, so it cannot create shipments in this environment.", ar: "حساب التاجر غير نشط، فلا يمكنه إنشاء شحنات في هذه البيئة." },
    fix: { en: "Contact Tawsil to complete or restore your account; the sandbox accepts creates from accounts still in review.", ar: "تواصل مع توصيل لإكمال حسابك أو استعادته؛ بيئة الاختبار تقبل الإنشاء من الحسابات التي ما زالت قيد المراجعة." },
  },
  SHIPMENT_NOT_FOUND: {
    meaning: { en: "No shipment has this id in this environment.", ar: "لا توجد شحنة بهذا المعرّف في هذه البيئة." },
    fix: { en: "Use the shipmentId (or id) a create returned, against the same environment (sandbox and production are separate).", ar: "استخدم shipmentId (أو id) الذي أعاده الإنشاء، وفي البيئة نفسها (بيئة الاختبار والإنتاج منفصلتان)." },
  },
  WEBHOOK_NOT_FOUND: {
    meaning: { en: "No webhook is registered for your merchant account.", ar: "لا يوجد ويب هوك مسجّل لحساب التاجر." },
    fix: { en: "Register one with POST /v2/external/webhook first.", ar: "سجّل واحدًا أولًا عبر POST /v2/external/webhook." },
  },
  TRACKING_LINK_NOT_FOUND: {
    meaning: { en: "No shipment is tracked by this link code.", ar: "لا توجد شحنة تُتتبّع برمز الرابط هذا." },
    fix: { en: "Use the trackingUrl of a shipment exactly as the API returned it.", ar: "استخدم trackingUrl الخاص بالشحنة كما أعادته الواجهة تمامًا." },
  },
  OFFER_NOT_FOUND: {
    meaning: { en: "You (the driver of the token) have no offer with this id: it does not exist or is another driver's.", ar: "ليس لديك (السائق صاحب الرمز) عرض بهذا المعرّف: فهو غير موجود أو يخص سائقًا آخر." },
    fix: { en: "Use an offerId from GET /v2/driver/offers.", ar: "استخدم offerId من GET /v2/driver/offers." },
  },
  JOB_NOT_FOUND: {
    meaning: { en: "You (the driver of the token) carry no shipment with this id: it does not exist, is another driver's, or is finished.", ar: "لا تحمل (السائق صاحب الرمز) شحنة بهذا المعرّف: فهي غير موجودة أو تخص سائقًا آخر أو انتهت." },
    fix: { en: "Use a shipmentId from GET /v2/driver/jobs.", ar: "استخدم shipmentId من GET /v2/driver/jobs." },
  },
  RESOURCE_NOT_FOUND: {
    meaning: { en: "No resource of the API has this path.", ar: "لا يوجد مورد في الواجهة بهذا المسار." },
    fix: { en: "Check the path against the API reference at /docs: every path begins with /v2.", ar: "قارن المسار بمرجع الواجهة في /docs: كل المسارات تبدأ بـ ‎/v2." },
  },
  METHOD_NOT_ALLOWED: {
    meaning: { en: "The path exists but does not support this HTTP method.", ar: "المسار موجود لكنه لا يدعم طريقة HTTP هذه." },
    fix: { en: "Use one of the methods listed in the Allow header of the answer.", ar: "استخدم إحدى الطرق المذكورة في الترويسة Allow من الرد." },
  },
  SHIPMENT_ALREADY_ASSIGNED: {
    meaning: { en: "A driver has been offered or assigned this shipment, so it can no longer be cancelled.", ar: "عُرضت الشحنة على سائق أو أُسندت إليه، فلم يعد بالإمكان إلغاؤها." },
    fix: { en: "Do not retry the cancel. Follow the shipment through its webhooks or GET /v2/external/shipments/{id}, and contact Tawsil if it must be stopped.", ar: "لا تُعِد محاولة الإلغاء. تابع الشحنة عبر الويب هوك أو GET /v2/external/shipments/{id}، وتواصل مع توصيل إذا لزم إيقافها." },
  },
  SHIPMENT_NOT_CANCELLABLE: {
    meaning: { en: "The shipment is already in a final state (delivered, failed or cancelled).", ar: "الشحنة في حالة نهائية بالفعل (مُسلّمة أو فاشلة أو ملغاة)." },
    fix: { en: "Nothing is left to cancel; read the shipment to see its state.", ar: "لا يوجد ما يُلغى؛ اقرأ الشحنة لمعرفة حالتها." },
  },
  DUPLICATE_REFERENCE: {
    meaning: { en: "Your account already has a shipment with this reference, created with another Idempotency-Key or more than 24 hours ago. A reference stays unique forever.", ar: "لدى حسابك شحنة بهذا المرجع أُنشئت بمفتاح Idempotency-Key آخر أو قبل أكثر من 24 ساعة. يبقى المرجع فريدًا دائمًا." },
    fix: { en: "Find the existing shipment with GET /v2/external/shipments?externalReference=<reference>, or use a new reference for a new shipment.", ar: "ابحث عن الشحنة الموجودة عبر GET /v2/external/shipments?externalReference=<reference>، أو استخدم مرجعًا جديدًا لشحنة جديدة." },
  },
  IDEMPOTENCY_KEY_IN_USE: {
    meaning: { en: "The first request with this key (or, without a key, this reference or shipment) is still running.", ar: "الطلب الأول بهذا المفتاح (أو بهذا المرجع أو هذه الشحنة عند غياب المفتاح) ما زال قيد التنفيذ." },
    fix: { en: "Wait for Retry-After seconds and send the same request again: it then answers with the first request's result.", ar: "انتظر عدد الثواني في Retry-After ثم أرسل الطلب نفسه مجددًا: سيُعاد إليك ناتج الطلب الأول." },
  },
  DELIVERY_PIN_LOCKED: {
    meaning: { en: "Five wrong delivery PINs were entered for this job, so its DELIVERED step is held for 10 minutes.", ar: "أُدخل رمز تسليم خاطئ خمس مرات لهذه المهمة، فأُوقفت خطوة التسليم لمدة 10 دقائق." },
    fix: { en: "Ask the recipient for the PIN shown on their tracking page, wait for Retry-After seconds, then report DELIVERED again with it.", ar: "اطلب من المستلم الرمز الظاهر في صفحة التتبع لديه، وانتظر عدد الثواني في Retry-After، ثم أبلغ عن التسليم مجددًا به." },
  },
  WEBHOOK_ALREADY_EXISTS: {
    meaning: { en: "Your account already has its one webhook.", ar: "لدى حسابك الويب هوك الوحيد المسموح به بالفعل." },
    fix: { en: "Change it with PATCH /v2/external/webhook (If-Match: its version), or delete it first.", ar: "عدّله عبر PATCH /v2/external/webhook (مع If-Match بقيمة إصداره)، أو احذفه أولًا." },
  },
  OFFER_NOT_OPEN: {
    meaning: { en: "The offer is yours but no longer open: it expired, you declined it, or it was withdrawn (the shipment was cancelled).", ar: "العرض لك لكنه لم يعد متاحًا: انتهت صلاحيته أو رفضته أو سُحب (أُلغيت الشحنة)." },
    fix: { en: "List your open offers again with GET /v2/driver/offers; do not retry this one.", ar: "اعرض عروضك المتاحة مجددًا عبر GET /v2/driver/offers؛ ولا تُعد المحاولة على هذا العرض." },
  },
  STEP_NOT_ALLOWED: {
    meaning: { en: "The shipment's state does not allow this step now (steps go PICKED_UP, OUT_FOR_DELIVERY, then DELIVERED or DELIVERY_FAILED).", ar: "حالة الشحنة لا تسمح بهذه الخطوة الآن (تسير الخطوات: PICKED_UP ثم OUT_FOR_DELIVERY ثم DELIVERED أو DELIVERY_FAILED)." },
    fix: { en: "Send the steps in order; read GET /v2/driver/jobs to see which jobs you still carry.", ar: "أرسل الخطوات بالترتيب؛ واطّلع على GET /v2/driver/jobs لمعرفة المهام التي ما زلت تحملها." },
  },
  TRACKING_LINK_EXPIRED: {
    meaning: { en: "This tracking link expired 7 days after the delivery ended.", ar: "انتهت صلاحية رابط التتبع هذا بعد 7 أيام من انتهاء التوصيل." },
    fix: { en: "The merchant can still read the shipment with GET /v2/external/shipments/{id}; customers no longer can.", ar: "ما زال بإمكان التاجر قراءة الشحنة عبر GET /v2/external/shipments/{id}؛ أما العملاء فلم يعد بإمكانهم ذلك." },
  },
  PRECONDITION_FAILED: {
    meaning: { en: "If-Match does not name the webhook's current version: it changed since you read it.", ar: "قيمة If-Match لا تطابق الإصدار الحالي للويب هوك: فقد تغيّر منذ قراءتك له." },
    fix: { en: "GET /v2/external/webhook, check the change still makes sense, and send it again with the new ETag in If-Match.", ar: "نفّذ GET /v2/external/webhook وتحقق من أن التغيير ما زال مناسبًا، ثم أعد إرساله مع قيمة ETag الجديدة في If-Match." },
  },
  PAYLOAD_TOO_LARGE: {
    meaning: { en: "The request body is over 256 KiB.", ar: "حجم محتوى الطلب يتجاوز 256 كيلوبايت." },
    fix: { en: "Send a smaller body: at most 100 items per shipment and no data the request does not define.", ar: "أرسل محتوى أصغر: 100 عنصر على الأكثر لكل شحنة ودون بيانات لا يعرّفها الطلب." },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    meaning: { en: "The body is not of the media type the operation reads.", ar: "نوع محتوى الطلب ليس النوع الذي تقرؤه العملية." },
    fix: { en: "Send JSON with Content-Type: application/json (the token endpoint reads application/x-www-form-urlencoded).", ar: "أرسل JSON مع الترويسة Content-Type: application/json (أما نقطة الرموز فتقرأ application/x-www-form-urlencoded)." },
  },
  VALIDATION_FAILED: {
    meaning: { en: "The body was read but breaks the rules listed in violations (up to 20), each with the field, a code and a message.", ar: "قُرئ المحتوى لكنه يخالف القواعد المذكورة في violations (حتى 20)، لكل منها الحقل ورمز ورسالة." },
    fix: { en: "Correct every field named in violations, then send the request again.", ar: "صحّح كل حقل مذكور في violations ثم أعد إرسال الطلب." },
  },
  IDEMPOTENCY_KEY_REUSED: {
    meaning: { en: "This Idempotency-Key (or, without one, this reference, or this shipment's cancel) was already used with a different request in the last 24 hours.", ar: "استُخدم مفتاح Idempotency-Key هذا (أو هذا المرجع، أو إلغاء هذه الشحنة عند غياب المفتاح) مع طلب مختلف خلال آخر 24 ساعة." },
    fix: { en: "To get the first result again, send exactly the same request. For a new shipment, use a new reference and a new key.", ar: "لاستعادة الناتج الأول أرسل الطلب نفسه تمامًا. ولشحنة جديدة استخدم مرجعًا جديدًا ومفتاحًا جديدًا." },
  },
  OUTSIDE_COVERAGE: {
    meaning: { en: "The pickup or the destination lies outside the service area of every city Tawsil serves, or they lie in different cities.", ar: "موقع الاستلام أو الوجهة خارج نطاق الخدمة في كل المدن التي تخدمها توصيل، أو أنهما في مدينتين مختلفتين." },
    fix: { en: "Check the coordinates (latitude before longitude, decimal degrees); pickup and destination must be in one city's service area.", ar: "تحقق من الإحداثيات (خط العرض قبل خط الطول، بالدرجات العشرية)؛ يجب أن يقع الاستلام والوجهة في نطاق خدمة مدينة واحدة." },
  },
  CITY_MISMATCH: {
    meaning: { en: "The city code you sent is not the city the destination coordinates lie in.", ar: "رمز المدينة المرسل ليس المدينة التي تقع فيها إحداثيات الوجهة." },
    fix: { en: "Omit the city code (it is derived from the coordinates) or send the right one, such as RUH, JED or DMM.", ar: "احذف رمز المدينة (يُشتق من الإحداثيات) أو أرسل الرمز الصحيح مثل RUH أو JED أو DMM." },
  },
  NO_ELIGIBLE_SERVICE: {
    meaning: { en: "No delivery service can carry this shipment now: no driver is on shift in the city, its requirements or size exceed what is offered, or no commercial terms are agreed for your account.", ar: "لا توجد خدمة توصيل تستطيع نقل هذه الشحنة الآن: لا يوجد سائق مناوب في المدينة، أو متطلباتها أو حجمها يتجاوز المتاح، أو لم يُتفق على شروط تجارية لحسابك." },
    fix: { en: "Read detail; try again later, with fewer requirements or a smaller parcel, or contact Tawsil about your terms.", ar: "اقرأ detail؛ ثم أعد المحاولة لاحقًا أو بمتطلبات أقل أو طرد أصغر، أو تواصل مع توصيل بشأن شروطك." },
  },
  MEDIA_ASSET_NOT_FOUND: {
    meaning: { en: "No media asset has this id: it never existed, or it was deleted 24 hours after its creation because no shipment named it.", ar: "لا يوجد ملف وسائط بهذا المعرّف: لم يوجد قط، أو حُذف بعد 24 ساعة من إنشائه لأن أي شحنة لم تُشر إليه." },
    fix: { en: "Use the mediaAssetId returned by POST /v2/external/media-assets, and name it in a create within 24 hours; otherwise upload it again.", ar: "استخدم mediaAssetId الذي أعاده POST /v2/external/media-assets وأشر إليه في إنشاء شحنة خلال 24 ساعة؛ وإلا فارفعه من جديد." },
  },
  MEDIA_REJECTED: {
    meaning: { en: "The uploaded bytes do not match the asset: their signature is not the declared contentType, their length is not sizeBytes, or the image does not decode. Nothing of them was kept.", ar: "المحتوى المرفوع لا يطابق الملف المعلن: توقيعه ليس نوع contentType المعلن، أو طوله ليس sizeBytes، أو تعذّر فك ترميز الصورة. لم يُحتفظ بشيء منه." },
    fix: { en: "Upload the complete file, of exactly sizeBytes bytes, in the format contentType names (JPEG, PNG, WebP or PDF). The asset stays PENDING_UPLOAD, so you may PUT its content again.", ar: "ارفع الملف كاملًا بطول sizeBytes تمامًا وبالصيغة التي يسمّيها contentType (JPEG أو PNG أو WebP أو PDF). يبقى الملف في PENDING_UPLOAD فيمكنك إعادة رفع محتواه." },
  },
  UNSUPPORTED_CURRENCY: {
    meaning: { en: "Only Saudi riyals are supported.", ar: "العملة المدعومة هي الريال السعودي فقط." },
    fix: { en: "Send currency SAR, or omit it (SAR is the default).", ar: "أرسل العملة SAR أو احذفها (SAR هي القيمة الافتراضية)." },
  },
  PRECONDITION_REQUIRED: {
    meaning: { en: "Changing, rotating or deleting the webhook needs If-Match, so that two changes never overwrite each other.", ar: "تعديل الويب هوك أو تدوير سره أو حذفه يتطلب If-Match، حتى لا يكتب تغييران أحدهما فوق الآخر." },
    fix: { en: "Send If-Match with the ETag of your last GET /v2/external/webhook.", ar: "أرسل If-Match بقيمة ETag من آخر GET /v2/external/webhook." },
  },
  RATE_LIMITED: {
    meaning: { en: "Too many requests in a short time for this client, this tracking link or this operation.", ar: "طلبات كثيرة جدًا في وقت قصير لهذا العميل أو رابط التتبع هذا أو هذه العملية." },
    fix: { en: "Wait for Retry-After seconds before the next request, and pace requests by the RateLimit headers.", ar: "انتظر عدد الثواني في Retry-After قبل الطلب التالي، ونظّم طلباتك وفق ترويسات RateLimit." },
  },
  INTERNAL_ERROR: {
    meaning: { en: "Something failed on our side; the request may or may not have taken effect.", ar: "حدث خلل من جهتنا؛ قد يكون الطلب نُفّذ وقد لا يكون." },
    fix: { en: "Retry with the same Idempotency-Key so that a create or cancel happens at most once; if it persists, send us the requestId.", ar: "أعد المحاولة بالمفتاح Idempotency-Key نفسه كي لا يُنفّذ الإنشاء أو الإلغاء أكثر من مرة؛ وإن استمر الخلل فأرسل إلينا requestId." },
  },
  SERVICE_UNAVAILABLE: {
    meaning: { en: "A part of Tawsil the operation needs is unavailable, and the operation was refused without effect.", ar: "جزء من توصيل تحتاجه العملية غير متاح، فرُفضت العملية دون أي أثر." },
    fix: { en: "Retry after Retry-After seconds, with exponential backoff and jitter, and the same Idempotency-Key.", ar: "أعد المحاولة بعد عدد الثواني في Retry-After مع تأخير متزايد وعشوائي، وبالمفتاح Idempotency-Key نفسه." },
  },
};
