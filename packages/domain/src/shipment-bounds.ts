/**
 * Bounds of a shipment create (decisions.md section 2), in one place: the gateway's request
 * schemas check them first, the shipment service's draft rules check them again, and both read
 * these numbers. `decimals` is the most decimals a value may carry (a 0.01 or 0.001 step).
 */

/** `declaredValue` and `codAmount` in both shapes: >= 0, cents, at most 10,000,000.00 SAR. */
export const MONEY_BOUNDS = { min: 0, max: 10_000_000, decimals: 2 } as const;

/** One item of a shipment; shape A's parcel becomes one such item (unit weight = weightKg / pieces). */
export const ITEM_BOUNDS = {
  description: { min: 1, max: 160 },
  quantity: { min: 1, max: 1000 },
  /** Per unit, kilograms: > 0 (exclusive) and <= max. */
  weightKilograms: { max: 1000, decimals: 3 },
  /** Each side, centimetres: > 0 (exclusive) and <= max. */
  dimensionCentimetres: { max: 500, decimals: 3 },
} as const;

export const DRAFT_BOUNDS = {
  reference: { min: 1, max: 128 },
  personName: { min: 1, max: 120 },
  items: { min: 1, max: 100 },
  requirements: { max: 20 },
  /** The pickup window ends at most this far ahead of now. */
  pickupWindowDaysAhead: 7,
} as const;

/** The step a number of `decimals` decimals moves in, as the contract writes it ("0.01"). */
export function stepOf(decimals: number): string {
  return decimals === 0 ? "1" : `0.${"0".repeat(decimals - 1)}1`;
}
