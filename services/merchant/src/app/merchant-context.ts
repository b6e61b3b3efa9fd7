import type { Merchants } from "./merchants";
import type { BranchRow, MerchantRow, PlaceStore, RateCardRecord, RateCardStore, SavedLocationRow } from "./ports";

/** Everything shipment and pricing keep in their caches about one merchant. */
export interface MerchantContext {
  readonly merchant: MerchantRow;
  readonly rateCard: RateCardRecord | undefined;
  readonly savedLocations: readonly SavedLocationRow[];
  readonly branches: readonly BranchRow[];
}

/**
 * Reads a merchant's whole context at once, so a cache miss in another service costs one call.
 * The parts are read concurrently; a change racing the read is announced by an event committed
 * after it, which drops the caller's entry again.
 */
export class MerchantContexts {
  constructor(private readonly deps: { merchants: Merchants; rateCards: RateCardStore; places: PlaceStore }) {}

  async of(merchantId: string): Promise<MerchantContext> {
    const merchant = await this.deps.merchants.byId(merchantId);
    const [rateCard, savedLocations, branches] = await Promise.all([
      this.deps.rateCards.current(merchant.id),
      this.deps.places.listSavedLocations(merchant.id),
      this.deps.places.listBranches(merchant.id),
    ]);
    return { merchant, rateCard, savedLocations, branches };
  }
}
