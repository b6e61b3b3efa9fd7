import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { FailedPreconditionError } from "@tawsil/errors";
import { ServiceLevel } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_pb";
import type { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import type { Quote, QuoteRequest, Quotes } from "../app/ports";
import { peerFailure, peerReason } from "@tawsil/rpc";

/** Pricing's refusals the shipment service passes on (COD_ABOVE_MAXIMUM is reworded by the use case). */
const REFUSALS = new Set(["OUTSIDE_COVERAGE", "CITY_MISMATCH", "NO_ELIGIBLE_SERVICE", "COD_ABOVE_MAXIMUM", "NO_RATE_CARD"]);

/** The pricing service's quotes: price, derived context and the terms to freeze. */
export class PricingServiceQuotes implements Quotes {
  constructor(private readonly client: Client<typeof PricingService>) {}

  async quote(request: QuoteRequest, signal: AbortSignal): Promise<Quote> {
    let response;
    try {
      response = await this.client.quoteDelivery(
        {
          merchantId: request.merchantId,
          pickup: request.pickup,
          destination: request.destination,
          expectedCityCode: request.expectedCityCode,
          parcel: { ...request.parcel, requirements: [...request.parcel.requirements] },
          codAmount: request.codAmount,
        },
        { signal },
      );
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.FailedPrecondition) {
        const reason = peerReason(error);
        if (reason && REFUSALS.has(reason)) throw new FailedPreconditionError(reason, error.rawMessage);
      }
      throw peerFailure(error, "the pricing service");
    }
    const { price, pickupContext, destinationContext } = response;
    if (!price || !pickupContext || !destinationContext || response.serviceLevel === ServiceLevel.UNSPECIFIED) {
      throw new Error("the pricing service answered an incomplete quote");
    }
    return {
      distanceMetres: Number(response.distanceMetres),
      price: price.amount,
      serviceLevel: ServiceLevel[response.serviceLevel],
      rateCardId: response.rateCardId,
      rateCardVersion: response.rateCardVersion,
      pickup: { cityCode: pickupContext.cityCode, addressLine: pickupContext.addressLine },
      destination: { cityCode: destinationContext.cityCode, addressLine: destinationContext.addressLine },
    };
  }
}
