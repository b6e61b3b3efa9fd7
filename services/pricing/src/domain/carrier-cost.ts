import type Decimal from "decimal.js";
import { Money, toHalalas } from "./money";
import type { ServiceLevel } from "@tawsil/domain";

/**
 * What we pay a carrier for a delivery at each service level, VAT excluded: a fixed fee per drop
 * plus a fee per km of route. Internal commercial data: it and the margin derived from it never
 * leave this service (architecture.md), not in responses and not in logs.
 */
const CARRIER_COSTS: Readonly<Record<ServiceLevel, { readonly perDrop: string; readonly perKm: string }>> = {
  BIKE: { perDrop: "6.00", perKm: "0.55" },
  CAR: { perDrop: "9.00", perKm: "0.85" },
  VAN: { perDrop: "16.00", perKm: "1.30" },
  COLD_CHAIN_VAN: { perDrop: "24.00", perKm: "1.90" },
};

export function carrierCost(level: ServiceLevel, distanceMetres: number): Decimal {
  const cost = CARRIER_COSTS[level];
  return toHalalas(new Money(cost.perDrop).plus(new Money(distanceMetres).dividedBy(1000).times(cost.perKm)));
}

/** Price net of VAT minus carrier cost; negative when a delivery loses money. */
export function marginOf(netPrice: Decimal, level: ServiceLevel, distanceMetres: number): Decimal {
  return netPrice.minus(carrierCost(level, distanceMetres));
}
