import Decimal from "decimal.js";

/**
 * Decimal arithmetic for money: a private constructor (the global one stays untouched) with
 * precision far beyond any amount we handle and half-up rounding, the commercial convention.
 */
export const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_UP });
export type Money = Decimal;

/** Rounds to halalas (0.01 SAR), half up: 12.345 -> 12.35, 12.344999 -> 12.34. */
export function toHalalas(amount: Decimal): Decimal {
  return amount.toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
}

/** A non-negative decimal string such as "12", "12.5" or "0.125"; anything else is not money. */
const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

export function money(value: string): Decimal {
  if (!DECIMAL.test(value)) throw new Error(`not a non-negative decimal: ${JSON.stringify(value)}`);
  return new Money(value);
}
