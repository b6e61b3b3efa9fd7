import { FailedPreconditionError } from "@tawsil/errors";
import type Decimal from "decimal.js";
import { money, Money, toHalalas } from "./money";

import type { RateCardTerms } from "@tawsil/domain";

export type { RateCardTerms };

export interface PriceInput {
  /** Whole metres, as the quote reports them, so the price can be recomputed from the response. */
  readonly distanceMetres: number;
  readonly weightGrams: number;
  /** SAR decimal string; "0" for prepaid. */
  readonly codAmount: string;
  readonly requirements: readonly string[];
}

export interface Price {
  /** VAT excluded, rounded to 0.01 SAR. */
  readonly net: Decimal;
  /** 15 % of `net`, rounded to 0.01 SAR. */
  readonly vat: Decimal;
  /** `net + vat`: what the merchant pays, two decimals. */
  readonly total: Decimal;
}

/** Saudi VAT, standard rate. */
export const VAT_RATE = new Money("0.15");

/**
 * The price of a delivery under a rate card, in decimal arithmetic throughout:
 *
 *   net   = half_up_2( base_fee
 *                      + max(0, km - included_km) * per_km_fee
 *                      + max(0, kg - included_weight_kg) * per_kg_fee
 *                      + (cod > 0 ? max(cod * cod_fee_percent / 100, cod_fee_minimum) : 0)
 *                      + sum of the surcharges of the requested requirements )
 *   vat   = half_up_2(net * 0.15)
 *   total = net + vat
 *
 * with km = metres / 1000 and kg = grams / 1000, both exact. The VAT-exclusive amount is rounded
 * before VAT, as on a Saudi tax invoice, so that net, VAT and total are each two-decimal amounts
 * and net + VAT = total holds exactly for whoever reconciles them. Both roundings are monotonic,
 * so the price never decreases when distance or weight grows. A requirement without a surcharge
 * on the card costs nothing extra. COD above the card's maximum is refused (COD_ABOVE_MAXIMUM).
 */
export function priceDelivery(terms: RateCardTerms, input: PriceInput): Price {
  checkCodAmount(terms, input.codAmount);
  const cod = money(input.codAmount);
  const km = new Money(input.distanceMetres).dividedBy(1000);
  const kg = new Money(input.weightGrams).dividedBy(1000);
  const distanceFee = Money.max(0, km.minus(money(terms.includedKm))).times(money(terms.perKmFee));
  const weightFee = Money.max(0, kg.minus(money(terms.includedWeightKg))).times(money(terms.perKgFee));
  const codFee = cod.isZero() ? new Money(0) : Money.max(cod.times(money(terms.codFeePercent)).dividedBy(100), money(terms.codFeeMinimum));
  const surcharges = terms.requirementSurcharges
    .filter((surcharge) => input.requirements.includes(surcharge.requirement))
    .reduce((sum, surcharge) => sum.plus(money(surcharge.fee)), new Money(0));

  const net = toHalalas(money(terms.baseFee).plus(distanceFee).plus(weightFee).plus(codFee).plus(surcharges));
  const vat = toHalalas(net.times(VAT_RATE));
  return { net, vat, total: net.plus(vat) };
}

/** COD up to the card's max_cod_amount (inclusive) is accepted; above it, COD_ABOVE_MAXIMUM. */
export function checkCodAmount(terms: RateCardTerms, codAmount: string): void {
  if (money(codAmount).greaterThan(money(terms.maxCodAmount))) {
    throw new FailedPreconditionError("COD_ABOVE_MAXIMUM", `the cash-on-delivery amount exceeds the agreed maximum of ${terms.maxCodAmount} SAR`);
  }
}
