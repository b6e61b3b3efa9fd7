import { ConnectError } from "@connectrpc/connect";
import type { Localized } from "../problem/catalogue";
import { reasonOf } from "../problem/from-connect";
import { ProblemError } from "../problem/problem-error";

/*
 * Without an Idempotency-Key header the key is what the merchant did send: a create's reference,
 * a cancel's shipment (decisions.md section 3). A refusal of that key speaks of the reference or
 * the shipment: the merchant sent no Idempotency-Key and would look for one in vain.
 */
const WORDING: Record<"create" | "cancel", Record<"IDEMPOTENCY_KEY_REUSED" | "IDEMPOTENCY_KEY_IN_USE", Localized>> = {
  create: {
    IDEMPOTENCY_KEY_REUSED: {
      en: "A shipment with this reference was created from a different request in the last 24 hours: send that same request to get it again, or use a new reference.",
      ar: "أُنشئت شحنة بهذا المرجع من طلب مختلف خلال آخر 24 ساعة: أرسل ذلك الطلب نفسه لاستعادتها، أو استخدم مرجعًا جديدًا.",
    },
    IDEMPOTENCY_KEY_IN_USE: {
      en: "A create with this reference is still in progress; retry shortly.",
      ar: "ما زال إنشاء بهذا المرجع قيد التنفيذ؛ أعد المحاولة بعد قليل.",
    },
  },
  cancel: {
    IDEMPOTENCY_KEY_REUSED: {
      en: "This shipment was already cancelled by a different request in the last 24 hours: send that same request to get its answer again.",
      ar: "أُلغيت هذه الشحنة بطلب مختلف خلال آخر 24 ساعة: أرسل ذلك الطلب نفسه لاستعادة ناتجه.",
    },
    IDEMPOTENCY_KEY_IN_USE: {
      en: "A cancel of this shipment is still in progress; retry shortly.",
      ar: "ما زال إلغاء هذه الشحنة قيد التنفيذ؛ أعد المحاولة بعد قليل.",
    },
  },
};

/** An idempotency refusal of a request sent without the header, worded by what served as its key; anything else unchanged. */
export function withImplicitKey(operation: "create" | "cancel", error: unknown): unknown {
  if (!(error instanceof ConnectError)) return error;
  const reason = reasonOf(error);
  if (reason !== "IDEMPOTENCY_KEY_REUSED" && reason !== "IDEMPOTENCY_KEY_IN_USE") return error;
  return new ProblemError(reason, WORDING[operation][reason], reason === "IDEMPOTENCY_KEY_IN_USE" ? { headers: { "retry-after": "1" } } : {});
}
