import type { Language } from "../request/language";
import type { PageFormat } from "./page-format";

export type StatusName = "CREATED" | "ASSIGNED" | "PICKED_UP" | "OUT_FOR_DELIVERY" | "DELIVERED" | "FAILED" | "CANCELLED";
export type FinishedStatus = "DELIVERED" | "FAILED" | "CANCELLED";
/** The tracking service's PublicReason names: why a delivery ended, never the merchant's code. */
export type ReasonName = "CUSTOMER_REQUEST" | "CANCELLED_BY_SENDER" | "NOT_ACCEPTED" | "RECIPIENT_UNREACHABLE" | "ADDRESS_NOT_FOUND" | "NOT_COMPLETED";
export type ErrorPage = "notFound" | "expired" | "busy" | "unavailable";

/** Every word of the customer page. A text with a number in it is a function of the page's format. */
export interface PageTexts {
  readonly brand: string;
  readonly languages: string;
  /** A status reached: the heading, and its step in the timeline. */
  readonly status: Readonly<Record<StatusName, string>>;
  /** A step not reached yet, named as what is still to happen ("Delivery", not "Delivered"). */
  readonly upcoming: Readonly<Record<"ASSIGNED" | "PICKED_UP" | "OUT_FOR_DELIVERY" | "DELIVERED", string>>;
  readonly stillToCome: string;
  readonly progress: string;
  readonly map: string;
  readonly mapDescription: string;
  readonly pickupArea: string;
  readonly destinationArea: string;
  readonly driverArea: (metres: number, f: PageFormat) => string;
  readonly noDriverPosition: string;
  readonly staleNote: string;
  readonly etaPickup: string;
  readonly etaDelivery: string;
  readonly noEta: string;
  /** The delivery PIN's label and what to do with it (shown while out for delivery only). */
  readonly deliveryPin: string;
  readonly deliveryPinNote: string;
  readonly refresh: (seconds: number, f: PageFormat) => string;
  /** What happened and when (null when the projection lacks the time): a finished page's first sentence. */
  readonly outcome: Readonly<Record<FinishedStatus, (when: string | null) => string>>;
  readonly reason: Readonly<Record<ReasonName, string>>;
  readonly contactSender: string;
  readonly errors: Readonly<Record<ErrorPage, { readonly title: string; readonly body: (f: PageFormat) => string }>>;
}

/**
 * Arabic counts of seconds by CLDR plural category: after كل, one and two are said by the noun
 * alone (كل ثانية، كل ثانيتين); three to ten take the plural (٥ ثوانٍ); eleven to ninety-nine
 * and hundreds the singular (٣٠ ثانية).
 */
const ARABIC_SECONDS: Record<Intl.LDMLPluralRule, (n: string) => string> = {
  zero: (n) => `${n} ثانية`,
  one: () => "ثانية",
  two: () => "ثانيتين",
  few: (n) => `${n} ثوانٍ`,
  many: (n) => `${n} ثانية`,
  other: (n) => `${n} ثانية`,
};

const en: PageTexts = {
  brand: "Tawsil",
  languages: "Language",
  status: {
    CREATED: "Order received",
    ASSIGNED: "Driver assigned",
    PICKED_UP: "Picked up",
    OUT_FOR_DELIVERY: "Out for delivery",
    DELIVERED: "Delivered",
    FAILED: "Delivery failed",
    CANCELLED: "Cancelled",
  },
  upcoming: { ASSIGNED: "Driver assignment", PICKED_UP: "Pickup", OUT_FOR_DELIVERY: "Out for delivery", DELIVERED: "Delivery" },
  stillToCome: "still to come",
  progress: "Progress",
  map: "Where your parcel is",
  mapDescription: "A sketch of the pickup area, the destination area and, while the parcel is on its way, the area the driver is in.",
  pickupArea: "Pickup area",
  destinationArea: "Destination area",
  driverArea: (metres, f) => `Driver's area (about ${f.number(metres)} m)`,
  noDriverPosition: "The driver's position is shown once your parcel is on its way.",
  staleNote: "Last known position, a few minutes old.",
  etaPickup: "Estimated pickup",
  etaDelivery: "Estimated delivery",
  noEta: "No arrival estimate yet.",
  deliveryPin: "Delivery PIN",
  deliveryPinNote: "Give this PIN to the driver when your parcel arrives, and to nobody else.",
  refresh: (seconds, f) => `This page refreshes itself every ${f.plural(seconds) === "one" ? "second" : `${f.number(seconds)} seconds`}.`,
  outcome: {
    DELIVERED: (when) => `Your parcel was delivered${when ? ` on ${when}` : ""}.`,
    CANCELLED: (when) => `This delivery was cancelled${when ? ` on ${when}` : ""}.`,
    FAILED: (when) => `The driver could not deliver your parcel${when ? ` on ${when}` : ""}.`,
  },
  reason: {
    CUSTOMER_REQUEST: "The sender cancelled it at the customer's request.",
    CANCELLED_BY_SENDER: "The sender cancelled it.",
    NOT_ACCEPTED: "Tawsil could not accept this delivery.",
    RECIPIENT_UNREACHABLE: "The driver could not reach the recipient.",
    ADDRESS_NOT_FOUND: "The driver could not find the address.",
    NOT_COMPLETED: "The delivery could not be completed.",
  },
  contactSender: "For a new delivery, please contact the sender.",
  errors: {
    notFound: { title: "Tracking link not found", body: () => "We could not find a delivery for this link. Check that you copied the whole link." },
    expired: { title: "Tracking link expired", body: (f) => `This delivery ended more than ${f.number(7)} days ago, so its tracking link has expired.` },
    busy: { title: "Too many requests", body: () => "This link was opened too often in the last minute. Please wait a moment and try again." },
    unavailable: { title: "Tracking is unavailable", body: () => "Tracking is unavailable right now. Please try again in a minute." },
  },
};

const ar: PageTexts = {
  brand: "توصيل",
  languages: "اللغة",
  status: {
    CREATED: "تم استلام الطلب",
    ASSIGNED: "تم تعيين سائق",
    PICKED_UP: "تم الاستلام من المتجر",
    OUT_FOR_DELIVERY: "في الطريق إليك",
    DELIVERED: "تم التوصيل",
    FAILED: "تعذّر التوصيل",
    CANCELLED: "أُلغيت الشحنة",
  },
  // Nouns of the action: "تم التوصيل" (delivery done) next to "لم يتم بعد" (not done yet) said both.
  upcoming: { ASSIGNED: "تعيين سائق", PICKED_UP: "الاستلام من المتجر", OUT_FOR_DELIVERY: "الخروج للتوصيل", DELIVERED: "التوصيل" },
  stillToCome: "لم يتم بعد",
  progress: "مراحل الشحنة",
  map: "أين شحنتك",
  mapDescription: "رسم تقريبي لمنطقة الاستلام ومنطقة التوصيل، ومنطقة السائق أثناء توصيل الشحنة.",
  pickupArea: "منطقة الاستلام",
  destinationArea: "منطقة التوصيل",
  driverArea: (metres, f) => `منطقة السائق (نحو ${f.number(metres)} م)`,
  noDriverPosition: "يظهر موقع السائق عندما تكون شحنتك في الطريق.",
  staleNote: "آخر موقع معروف، منذ بضع دقائق.",
  etaPickup: "الوقت المتوقع للاستلام",
  etaDelivery: "الوقت المتوقع للتوصيل",
  noEta: "لا يوجد وقت وصول متوقع بعد.",
  deliveryPin: "رمز التسليم",
  deliveryPinNote: "أعطِ هذا الرمز للسائق عند وصول شحنتك، ولا تعطه لأحد غيره.",
  refresh: (seconds, f) => `تتحدّث هذه الصفحة تلقائيًا كل ${ARABIC_SECONDS[f.plural(seconds)](f.number(seconds))}.`,
  outcome: {
    DELIVERED: (when) => `تم توصيل شحنتك${when ? ` في ${when}` : ""}.`,
    CANCELLED: (when) => `أُلغيت هذه الشحنة${when ? ` في ${when}` : ""}.`,
    FAILED: (when) => `تعذّر على السائق توصيل شحنتك${when ? ` في ${when}` : ""}.`,
  },
  reason: {
    CUSTOMER_REQUEST: "ألغاها المرسل بناءً على طلب العميل.",
    CANCELLED_BY_SENDER: "ألغاها المرسل.",
    NOT_ACCEPTED: "تعذّر على توصيل قبول هذه الشحنة.",
    RECIPIENT_UNREACHABLE: "لم يتمكن السائق من الوصول إلى المستلم.",
    ADDRESS_NOT_FOUND: "لم يتمكن السائق من العثور على العنوان.",
    NOT_COMPLETED: "تعذّر إتمام التوصيل.",
  },
  contactSender: "لترتيب توصيل جديد، تواصل مع المرسل.",
  errors: {
    notFound: { title: "رابط التتبع غير موجود", body: () => "لم نعثر على شحنة لهذا الرابط. تأكد من نسخ الرابط كاملًا." },
    // Seven takes the plural أيام (CLDR "few"); the lifetime is fixed, so is the form.
    expired: { title: "انتهت صلاحية رابط التتبع", body: (f) => `انتهت هذه الشحنة قبل أكثر من ${f.number(7)} أيام، لذلك انتهت صلاحية رابط تتبعها.` },
    busy: { title: "طلبات كثيرة جدًا", body: () => "فُتح هذا الرابط مرات كثيرة خلال الدقيقة الماضية. انتظر قليلًا ثم أعد المحاولة." },
    unavailable: { title: "التتبع غير متاح", body: () => "التتبع غير متاح حاليًا. أعد المحاولة بعد دقيقة." },
  },
};

export const PAGE_TEXTS: Readonly<Record<Language, PageTexts>> = { en, ar };
