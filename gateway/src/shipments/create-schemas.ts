import { REQUIREMENTS } from "@tawsil/domain";
import { z } from "zod";
import { cityCode, latitude, longitude } from "../validation/rules";
import type { RuleParams } from "../validation/validate";

/** Shape A's mobile rule, used by both shapes (decisions.md section 2). */
export const MOBILE = /^(?:05|5|\+9665)[0-9]{8}$/;
const CODE = /^[A-Z0-9][A-Z0-9_-]{1,63}$/;
const REQUIREMENT = /^[A-Z][A-Z0-9_]{1,47}$/;

/** +9665 followed by the last 8 digits, however the merchant wrote it. */
export function canonicalMobile(mobile: string): string {
  return `+9665${mobile.slice(-8)}`;
}

const isCentStep = (value: number) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;
const centStep: RuleParams = { code: "NOT_MULTIPLE_OF", multipleOf: "0.01" };
const amount = z.number().min(0).max(10_000_000).refine(isCentStep, { params: centStep });
const utc = z.iso.datetime();
const requirement = z.string().regex(REQUIREMENT).pipe(z.enum(REQUIREMENTS));

/** Shape A (simplified): no unknown properties anywhere. */
export const shapeABody = z.strictObject({
  reference: z.string().min(1).max(128),
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
  recipient: z.strictObject({ name: z.string().min(1).max(120), mobile: z.string().regex(MOBILE) }),
  parcel: z
    .strictObject({
      description: z.string().min(1).max(160).optional(),
      pieces: z.number().int().min(1).max(100).optional(),
      weightKg: z.number().positive().max(100_000).optional(),
    })
    .optional(),
  codAmount: z.number().positive().max(10_000_000).refine(isCentStep, { params: centStep }).optional(),
  pickupWindow: z.strictObject({ start: utc, end: utc }).optional(),
});

const EITHER_PICKUP = { en: "must be either {savedLocationCode} or {latitude, longitude}, not both", ar: "يجب أن يكون إما {savedLocationCode} أو {latitude, longitude} وليس كليهما" };

const dimension = z.number().positive().max(500);

/** Shape B (canonical), with the required fields and bounds of decisions.md section 2. */
export const shapeBBody = z
  .strictObject({
    externalReference: z.string().min(1).max(128),
    branchCode: z.string().regex(CODE).optional(),
    pickupLocationCode: z.string().regex(CODE),
    recipient: z.strictObject({
      name: z.string().min(1).max(120),
      phone: z.string().regex(MOBILE),
      alternateContactName: z.string().min(1).max(120).optional(),
      alternateContactPhone: z.string().regex(MOBILE).optional(),
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
          description: z.string().min(1).max(160),
          quantity: z.number().int().min(1).max(1000),
          weightKilograms: z.number().positive().max(1000),
          lengthCentimetres: dimension.optional(),
          widthCentimetres: dimension.optional(),
          heightCentimetres: dimension.optional(),
        }),
      )
      .min(1)
      .max(100),
    requirements: z.array(requirement).max(20).optional(),
  })
  .superRefine((body, ctx) => {
    if ((body.pickupWindowStart === undefined) !== (body.pickupWindowEnd === undefined)) {
      const missing = body.pickupWindowStart === undefined ? "pickupWindowStart" : "pickupWindowEnd";
      ctx.addIssue({ code: "custom", path: [missing], params: { code: "REQUIRED" } satisfies RuleParams });
    }
  });

export type ShapeABody = z.output<typeof shapeABody>;
export type ShapeBBody = z.output<typeof shapeBBody>;
