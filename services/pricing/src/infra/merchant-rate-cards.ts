import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { ReadThroughCache } from "@tawsil/cache";
import { FailedPreconditionError } from "@tawsil/errors";
import type { RateCard as RateCardMessage } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import type { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import type { RateCard, RateCardSource } from "../app/ports";
import { peerFailure, peerReason } from "@tawsil/rpc";

/**
 * Rate cards from the merchant service, kept in this process: one call on a miss, dropped by the
 * merchant's events (consumers/merchant-changes.ts), so a new card prices the next quote. An
 * unknown merchant and a merchant without terms are the same thing to pricing: nothing agreed to
 * price with (NO_RATE_CARD), and neither is cached, so terms added later are seen at once.
 */
export class MerchantRateCards implements RateCardSource {
  readonly cache: ReadThroughCache<RateCard>;

  constructor(client: Client<typeof MerchantService>, opts: { maxAgeMs: number }) {
    this.cache = new ReadThroughCache({ maxAgeMs: opts.maxAgeMs, load: (merchantId) => loadRateCard(client, merchantId) });
  }

  async current(merchantId: string): Promise<RateCard> {
    const card = await this.cache.get(merchantId);
    if (!card) throw new FailedPreconditionError("NO_RATE_CARD", "the merchant has no rate card in force");
    return card;
  }
}

async function loadRateCard(client: Client<typeof MerchantService>, merchantId: string): Promise<RateCard | undefined> {
  let card: RateCardMessage | undefined;
  try {
    card = (await client.getCurrentRateCard({ merchantId })).rateCard;
  } catch (error) {
    if (error instanceof ConnectError && isNoRateCard(error)) return undefined;
    throw peerFailure(error, "the merchant service");
  }
  if (!card) throw new Error("the merchant service answered without a rate card");
  return {
    id: card.rateCardId,
    version: card.version,
    terms: {
      baseFee: card.baseFee,
      includedKm: card.includedKm,
      perKmFee: card.perKmFee,
      includedWeightKg: card.includedWeightKg,
      perKgFee: card.perKgFee,
      codFeePercent: card.codFeePercent,
      codFeeMinimum: card.codFeeMinimum,
      maxCodAmount: card.maxCodAmount,
      requirementSurcharges: card.requirementSurcharges.map(({ requirement, fee }) => ({ requirement, fee })),
    },
  };
}

function isNoRateCard(error: ConnectError): boolean {
  if (error.code === Code.NotFound) return true; // MERCHANT_NOT_FOUND
  return error.code === Code.FailedPrecondition && peerReason(error) === "NO_RATE_CARD";
}
