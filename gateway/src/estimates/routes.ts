import type { Client } from "@connectrpc/connect";
import type { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { cityCode, coordinate, toMicro } from "../validation/rules";
import { validateBody } from "../validation/validate";
import { resource } from "../routes/route-table";

const estimateBody = z.strictObject({
  pickup: coordinate,
  delivery: coordinate,
  destinationCityCode: cityCode.optional(),
});

/** An estimate prices the default parcel of shape A: one piece of 1 kg, prepaid, no requirements. */
const DEFAULT_PARCEL = { totalWeightGrams: 1000n, longestSideMm: 0, requirements: [], cashOnDelivery: false };

/**
 * POST /v2/external/shipment-price-estimates (decisions.md section 7): the route distance and the
 * VAT-inclusive price this merchant would pay, computed by pricing exactly as for a shipment.
 * Nothing is persisted.
 */
export function registerPriceEstimates(app: FastifyInstance, pricing: Client<typeof PricingService>): void {
  resource(app, "/v2/external/shipment-price-estimates", {
    POST: {
      onRequest: app.guard("shipments:read"),
      handler: async (request) => {
        const body = validateBody(estimateBody, request.body);
        const quote = await pricing.quoteDelivery({
          merchantId: request.principal!.merchantId,
          pickup: toMicro(body.pickup),
          destination: toMicro(body.delivery),
          expectedCityCode: body.destinationCityCode ?? "",
          parcel: DEFAULT_PARCEL,
          codAmount: "",
        });
        return { distanceMetres: Number(quote.distanceMetres), price: Number(quote.price?.amount), currency: quote.price?.currency ?? "SAR" };
      },
    },
  });
}
