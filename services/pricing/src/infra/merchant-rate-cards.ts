import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { FailedPreconditionError } from "@tawsil/errors";
import type { RateCard as RateCardMessage } from "@tawsil/proto/tawsil/merchant/v1/merchant_pb";
import type { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import type { RateCard, RateCardSource } from "../app/ports";
import { peerFailure, peerReason } from "./peer-errors";

/**
 * Rate cards from the merchant service. An unknown merchant and a merchant without terms are the
 * same thing to pricing: nothing agreed to price with (NO_RATE_CARD).
 */
export class MerchantRateCards implements RateCardSource {
  constructor(private readonly client: Client<typeof MerchantService>) {}

  async current(merchantId: string, signal: AbortSignal): Promise<RateCard> {
    let card: RateCardMessage | undefined;
    try {
      card = (await this.client.getCurrentRateCard({ merchantId }, { signal })).rateCard;
    } catch (error) {
      if (error instanceof ConnectError && isNoRateCard(error)) {
        throw new FailedPreconditionError("NO_RATE_CARD", "the merchant has no rate card in force");
      }
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
}

function isNoRateCard(error: ConnectError): boolean {
  if (error.code === Code.NotFound) return true; // MERCHANT_NOT_FOUND
  return error.code === Code.FailedPrecondition && peerReason(error) === "NO_RATE_CARD";
}
