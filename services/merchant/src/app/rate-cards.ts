import { FailedPreconditionError, ValidationError } from "@tawsil/errors";
import { parseRateCardTerms, type RateCardTermsInput } from "../domain/rate-card";
import type { RateCardRecord, RateCardStore } from "./ports";
import type { Merchants } from "./merchants";

export type { RateCardRecord };

/** Versions of merchants' commercial terms; a new version applies from the moment it is added. */
export class RateCards {
  constructor(private readonly deps: { rateCards: RateCardStore; merchants: Merchants; now?: () => Date }) {}

  async add(input: { merchantCode: string; terms: RateCardTermsInput | undefined; expectedVersion: number }): Promise<RateCardRecord> {
    const terms = parseRateCardTerms("terms", input.terms);
    if (!Number.isInteger(input.expectedVersion) || input.expectedVersion < 0) {
      throw new ValidationError("expected_version", "must be 0 (any) or a positive version");
    }
    const merchant = await this.deps.merchants.byCode(input.merchantCode, "merchant_code");
    return this.deps.rateCards.addNext(merchant.id, terms, {
      effectiveAt: this.deps.now?.() ?? new Date(),
      ...(input.expectedVersion > 0 ? { expectedVersion: input.expectedVersion } : {}),
    });
  }

  /** The terms in force for a merchant, for pricing; a merchant without any cannot be priced. */
  async current(merchantId: string): Promise<RateCardRecord> {
    const merchant = await this.deps.merchants.byId(merchantId);
    const card = await this.deps.rateCards.current(merchant.id);
    if (!card) throw new FailedPreconditionError("NO_RATE_CARD", `merchant ${merchant.code} has no rate card`);
    return card;
  }
}
