import { MONEY_BOUNDS } from "@tawsil/domain";
import { z } from "zod";
import { coordinate, latitude, longitude } from "../validation/rules";

/** The most fixes one call may carry (decisions.md section 17). */
export const MAX_FIXES_PER_BATCH = 100;

/** PUT /v2/driver/availability: on or off shift, with where the driver is when known. */
export const availabilityBody = z.strictObject({
  onShift: z.boolean(),
  position: coordinate.optional(),
});

/** One fix of POST /v2/driver/locations; recordedAt defaults to the moment it is received. */
const fix = z.strictObject({
  latitude,
  longitude,
  accuracyMetres: z.number().int().min(0).max(100_000).optional(),
  recordedAt: z.iso.datetime().optional(),
});

export const locationsBody = z.strictObject({
  fixes: z.array(fix).min(1).max(MAX_FIXES_PER_BATCH),
});

export const STEPS = ["PICKED_UP", "OUT_FOR_DELIVERY", "DELIVERED", "DELIVERY_FAILED"] as const;

const ONLY_WITH_FAILED = { en: "is allowed only with the step DELIVERY_FAILED", ar: "مسموح فقط مع الخطوة DELIVERY_FAILED" };
const ONLY_WITH_DELIVERED = { en: "is allowed only with the step DELIVERED", ar: "مسموح فقط مع الخطوة DELIVERED" };

const cents = (value: number) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;

/**
 * POST /v2/driver/jobs/{shipmentId}/steps. A failed delivery needs its reasonCode, and only it
 * may carry one; the proof (PIN, evidence, cash) goes with DELIVERED and is judged by the shipment
 * service against the shipment's requirements (decisions.md section 17).
 */
export const stepBody = z
  .strictObject({
    step: z.enum(STEPS),
    reasonCode: z.string().regex(/^[A-Z][A-Z0-9_]{1,47}$/).optional(),
    deliveryPin: z.string().regex(/^[0-9]{4}$/).optional(),
    evidenceMediaAssetIds: z.array(z.uuid()).max(10).optional(),
    codCollected: z
      .strictObject({
        amount: z.number().min(MONEY_BOUNDS.min).max(MONEY_BOUNDS.max).refine(cents, { params: { code: "NOT_MULTIPLE_OF", multipleOf: "0.01" } }),
        currency: z.enum(["SAR"]),
      })
      .optional(),
  })
  .superRefine((body, ctx) => {
    if (body.step === "DELIVERY_FAILED" && body.reasonCode === undefined) ctx.addIssue({ code: "custom", path: ["reasonCode"], params: { code: "REQUIRED" } });
    if (body.step !== "DELIVERY_FAILED" && body.reasonCode !== undefined) ctx.addIssue({ code: "custom", path: ["reasonCode"], params: { code: "INCONSISTENT_VALUE", rule: ONLY_WITH_FAILED } });
    for (const field of ["deliveryPin", "evidenceMediaAssetIds", "codCollected"] as const) {
      if (body.step !== "DELIVERED" && body[field] !== undefined) ctx.addIssue({ code: "custom", path: [field], params: { code: "INCONSISTENT_VALUE", rule: ONLY_WITH_DELIVERED } });
    }
  });

export type StepBody = z.output<typeof stepBody>;
