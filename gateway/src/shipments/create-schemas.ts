import { DRAFT_BOUNDS, ITEM_BOUNDS, MONEY_BOUNDS, REQUIREMENTS, stepOf } from "@tawsil/domain";
import { z } from "zod";
import { cityCode, latitude, longitude } from "../validation/rules";
import type { RuleParams } from "../validation/validate";

/** Shape A's mobile rule, used by both shapes (decisions.md section 2). */
export const MOBILE = /^(?:05|5|\+9665)[0-9]{8}$/;
const CODE = /^[A-Z0-9][A-Z0-9_-]{1,63}$/;
const REQUIREMENT = /^[A-Z][A-Z0-9_]{1,47}$/;

/** The mobile rule as a merchant reads it: example numbers of each accepted form, not the regex. */
const MOBILE_RULE = {
  en: "must be a Saudi mobile number such as 0512345678, 512345678 or +966512345678",
  ar: "يجب أن يكون رقم جوال سعوديًا مثل 0512345678 أو 512345678 أو ‎+966512345678",
};
const mobileNumber = z.string().refine((value) => MOBILE.test(value), { params: { code: "PATTERN_MISMATCH", rule: MOBILE_RULE } satisfies RuleParams });

/** +9665 followed by the last 8 digits, however the merchant wrote it. */
export function canonicalMobile(mobile: string): string {
  return `+9665${mobile.slice(-8)}`;
}

/** At most `decimals` decimals, judged on the decimal value (immune to binary float noise). */
function decimalsAtMost(decimals: number) {
  const scale = 10 ** decimals;
  const params: RuleParams = { code: "NOT_MULTIPLE_OF", multipleOf: stepOf(decimals) };
  return [(value: number) => Math.abs(value * scale - Math.round(value * scale)) < 1e-6, { params }] as const;
}

/** decisions.md section 2: one money rule for both shapes (>= 0, cents, at most 10,000,000.00). */
const amount = z.number().min(MONEY_BOUNDS.min).max(MONEY_BOUNDS.max).refine(...decimalsAtMost(MONEY_BOUNDS.decimals));
const weight = z.number().positive().refine(...decimalsAtMost(ITEM_BOUNDS.weightKilograms.decimals));
const reference = z.string().min(DRAFT_BOUNDS.reference.min).max(DRAFT_BOUNDS.reference.max);
const personName = z.string().min(DRAFT_BOUNDS.personName.min).max(DRAFT_BOUNDS.personName.max);
const description = z.string().min(ITEM_BOUNDS.description.min).max(ITEM_BOUNDS.description.max);
const utc = z.iso.datetime();
const requirement = z.string().regex(REQUIREMENT).pipe(z.enum(REQUIREMENTS));
/**
 * Evidence uploaded before the create (decisions.md section 16), in both shapes. Whether each
 * asset is the merchant's, READY and free is the shipment service's judgement, in the create's
 * transaction; here only the form. Merchants upload only SHIPMENT_CREATION_EVIDENCE.
 */
const timelineMedia = z
  .array(z.strictObject({ mediaAssetId: z.uuid(), purpose: z.enum(["SHIPMENT_CREATION_EVIDENCE"]), sortOrder: z.number().int().min(0).max(1000) }))
  .max(10);

/** Shape A (simplified): no unknown properties anywhere. */
export const shapeABody = z.strictObject({
  reference,
  pickup: z
    .strictObject({ savedLocationCode: z.string().regex(CODE).optional(), latitude: latitude.optional(), longitude: longitude.optional() })
    .superRefine((pickup, ctx) => {
      const pin = pickup.latitude !== undefined || pickup.longitude !== undefined;
      if (pickup.savedLocationCode !== undefined && pin) {
        ctx.addIssue({ code: "custom", path: [], params: { code: "INCONSISTENT_VALUE", rule: EITHER_PICKUP } satisfies RuleParams });
      } else if (pickup.savedLocationCode === undefined) {
        for (const axis of ["latitude", "longitude"] as const) {
          if (pickup[axis] === undefined) ctx.addIssue({ code: "custom", path: [axis], params: { code: "REQUIRED" } satisfies RuleParams });
        }
      }
    }),
  destination: z.strictObject({ latitude, longitude }),
  recipient: z.strictObject({ name: personName, mobile: mobileNumber }),
  parcel: z
    .strictObject({
      description: description.optional(),
      pieces: z.number().int().min(1).max(100).optional(),
      weightKg: weight.optional(),
    })
    .superRefine((parcel, ctx) => {
      // The parcel becomes `pieces` units of weightKg / pieces (3 decimals) each, and a unit
      // weighs at least a gram and at most the item bound: the bound on weightKg follows pieces.
      const pieces = Number.isInteger(parcel.pieces) ? (parcel.pieces ?? 1) : 1;
      const min = Number((pieces / 1000).toFixed(3));
      const max = pieces * ITEM_BOUNDS.weightKilograms.max;
      const kg = parcel.weightKg;
      if (kg !== undefined && kg > 0 && (kg < min || kg > max)) {
        ctx.addIssue({ code: "custom", path: ["weightKg"], params: { code: "OUT_OF_RANGE", min, max } satisfies RuleParams });
      }
    })
    .optional(),
  // decisions.md section 2 (>= 0, as in shape B) rather than delivery-api.md's "> 0": a 0 is prepaid.
  codAmount: amount.optional(),
  pickupWindow: z.strictObject({ start: utc, end: utc }).optional(),
  timelineMedia: timelineMedia.optional(),
});

const EITHER_PICKUP = { en: "must be either {savedLocationCode} or {latitude, longitude}, not both", ar: "يجب أن يكون إما {savedLocationCode} أو {latitude, longitude} وليس كليهما" };

const dimension = z.number().positive().max(ITEM_BOUNDS.dimensionCentimetres.max).refine(...decimalsAtMost(ITEM_BOUNDS.dimensionCentimetres.decimals));

/** Shape B (canonical), with the required fields and bounds of decisions.md section 2. */
export const shapeBBody = z
  .strictObject({
    externalReference: reference,
    branchCode: z.string().regex(CODE).optional(),
    pickupLocationCode: z.string().regex(CODE),
    recipient: z.strictObject({
      name: personName,
      phone: mobileNumber,
      alternateContactName: personName.optional(),
      alternateContactPhone: mobileNumber.optional(),
    }),
    destination: z.strictObject({ addressLine: z.string().min(1).max(300).optional(), cityCode: cityCode.optional(), latitude, longitude }),
    declaredValue: amount.optional(),
    codAmount: amount.optional(),
    currency: z.string().regex(/^[A-Z]{3}$/).optional(),
    paymentMethod: z.enum(["PREPAID", "COD"]).optional(),
    pickupWindowStart: utc.optional(),
    pickupWindowEnd: utc.optional(),
    items: z
      .array(
        z.strictObject({
          description,
          quantity: z.number().int().min(ITEM_BOUNDS.quantity.min).max(ITEM_BOUNDS.quantity.max),
          weightKilograms: weight.max(ITEM_BOUNDS.weightKilograms.max),
          lengthCentimetres: dimension.optional(),
          widthCentimetres: dimension.optional(),
          heightCentimetres: dimension.optional(),
        }),
      )
      .min(DRAFT_BOUNDS.items.min)
      .max(DRAFT_BOUNDS.items.max),
    requirements: z.array(requirement).max(DRAFT_BOUNDS.requirements.max).optional(),
    timelineMedia: timelineMedia.optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.pickupWindowStart === undefined) !== (body.pickupWindowEnd === undefined)) {
      const missing = body.pickupWindowStart === undefined ? "pickupWindowStart" : "pickupWindowEnd";
      ctx.addIssue({ code: "custom", path: [missing], params: { code: "REQUIRED" } satisfies RuleParams });
    }
  });

export type ShapeABody = z.output<typeof shapeABody>;
export type ShapeBBody = z.output<typeof shapeBBody>;
