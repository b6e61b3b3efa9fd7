import { z } from "zod";
import type { RuleParams } from "./validate";

/** The contract's 0.000001 step: judged on the decimal value, immune to binary float noise. */
function isMicroStep(value: number): boolean {
  const scaled = value * 1e6;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6;
}

const microStep: RuleParams = { code: "NOT_MULTIPLE_OF", multipleOf: "0.000001" };

/** Decimal degrees with the bounds and step of the Coordinate resource. */
export const latitude = z.number().min(-90).max(90).refine(isMicroStep, { params: microStep });
export const longitude = z.number().min(-180).max(180).refine(isMicroStep, { params: microStep });
export const coordinate = z.strictObject({ latitude, longitude });

/** Degrees to the integer microdegrees the protos carry. */
export function toMicro(point: z.output<typeof coordinate>): { latitudeMicro: number; longitudeMicro: number } {
  return { latitudeMicro: Math.round(point.latitude * 1e6), longitudeMicro: Math.round(point.longitude * 1e6) };
}

export const cityCode = z.string().regex(/^[A-Z]{3}$/);
