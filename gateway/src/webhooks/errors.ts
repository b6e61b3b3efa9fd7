import { ConnectError } from "@connectrpc/connect";
import { FieldViolationsSchema } from "@tawsil/proto/tawsil/common/v1/error_detail_pb";
import { RotationLimitedSchema } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import type { Localized } from "../problem/catalogue";
import { reasonOf } from "../problem/from-connect";
import { ProblemError } from "../problem/problem-error";
import { rateLimited } from "../rate-limit/rate-limited";
import { stale } from "./if-match";

/** The webhook service's URL rules, worded for merchants (decisions.md section 11). */
const URL_RULES: Record<string, Localized> = {
  LENGTH: { en: "must be at most 2048 characters long", ar: "يجب ألا يزيد طوله على 2048 حرفًا" },
  ABSOLUTE: { en: "must be a valid absolute URL", ar: "يجب أن يكون عنوان URL مطلقًا صالحًا" },
  SCHEME: { en: "must use https", ar: "يجب أن يستخدم https" },
  USERINFO: { en: "must not contain a user name or password", ar: "يجب ألا يحتوي على اسم مستخدم أو كلمة مرور" },
  FRAGMENT: { en: "must not contain a fragment (#)", ar: "يجب ألا يحتوي على جزء (#)" },
  ADDRESS: {
    en: "must not be or resolve to a loopback, private, link-local, multicast or otherwise non-public address",
    ar: "يجب ألا يكون أو يشير إلى عنوان محلي أو خاص أو ارتباط محلي أو بث متعدد أو أي عنوان غير عام",
  },
  UNRESOLVABLE: { en: "must name a host that resolves", ar: "يجب أن يشير إلى مضيف يمكن تحليل اسمه" },
};

const NOT_FOUND = { en: "No webhook is registered for this merchant.", ar: "لا يوجد ويب هوك مسجل لهذا التاجر." };

/** The webhook service's outcomes as the contract's problems; anything else goes to the shared mapping. */
export function webhookProblem(error: unknown): unknown {
  if (!(error instanceof ConnectError)) return error;
  switch (reasonOf(error)) {
    case "WEBHOOK_NOT_FOUND":
      return new ProblemError("WEBHOOK_NOT_FOUND", NOT_FOUND);
    case "WEBHOOK_ALREADY_EXISTS":
      return new ProblemError("WEBHOOK_ALREADY_EXISTS", {
        en: "This merchant already has a webhook; change it with PATCH or delete it first.",
        ar: "لدى هذا التاجر ويب هوك مسبقًا؛ عدّله باستخدام PATCH أو احذفه أولًا.",
      });
    case "WEBHOOK_VERSION_MISMATCH":
      return stale();
    case "WEBHOOK_ROTATION_LIMITED": {
      const limit = error.findDetails(RotationLimitedSchema)[0];
      return rateLimited(
        { name: "webhook-secret-rotation", quota: limit?.quota ?? 5, windowSeconds: limit?.windowSeconds ?? 3600 },
        { retryAfterSeconds: limit?.retryAfterSeconds ?? 1, remaining: 0 },
      );
    }
    case "VALIDATION_FAILED": {
      const violations = (error.findDetails(FieldViolationsSchema)[0]?.violations ?? []).map((v) => ({
        field: v.field,
        code: v.code,
        message: URL_RULES[v.params.rule ?? ""] ?? { en: "is not valid here", ar: "غير صالح هنا" },
      }));
      return new ProblemError("VALIDATION_FAILED", { en: "The request breaks the rules listed in violations.", ar: "الطلب يخالف القواعد المذكورة في violations." }, { violations });
    }
    default:
      return error;
  }
}
