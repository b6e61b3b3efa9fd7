import type { ServiceImpl } from "@connectrpc/connect";
import type { Logger } from "@tawsil/logging";
import type { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { serviceLevelToProto, withDomainErrors } from "@tawsil/rpc";
import type { QuoteDelivery } from "../app/quote-delivery";

/** What the gateway (estimates) and the shipment service (creation) call. Maps and delegates. */
export function pricingService(deps: { quoteDelivery: QuoteDelivery; logger: Logger }): ServiceImpl<typeof PricingService> {
  return withDomainErrors(
    {
      async quoteDelivery(req, ctx) {
        const quote = await deps.quoteDelivery.execute(
          {
            merchantId: req.merchantId,
            pickup: req.pickup,
            destination: req.destination,
            expectedCityCode: req.expectedCityCode,
            parcel: req.parcel,
            codAmount: req.codAmount,
          },
          ctx.signal,
        );
        return {
          distanceMetres: BigInt(quote.distanceMetres),
          price: quote.price,
          serviceLevel: serviceLevelToProto(quote.serviceLevel),
          rateCardId: quote.rateCardId,
          rateCardVersion: quote.rateCardVersion,
          pickupContext: quote.pickup,
          destinationContext: quote.destination,
        };
      },
    },
    // An outage's cause (a peer's error, a timeout) is logged at warn, never sent.
    { logger: deps.logger },
  );
}
