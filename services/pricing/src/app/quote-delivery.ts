import { parseCoordinate, type Coordinate } from "@tawsil/domain";
import { FailedPreconditionError } from "@tawsil/errors";
import type { Logger } from "@tawsil/logging";
import { marginOf } from "../domain/carrier-cost";
import type { CityMap, LocationContext } from "../domain/city-map";
import { resolveCoverage } from "../domain/coverage";
import { parseMerchantId, parseOptionalCityCode } from "../domain/identifiers";
import { parseCodAmount, parseParcel, type ParcelInput } from "../domain/parcel";
import { checkCodAmount, priceDelivery } from "../domain/price";
import type { RouteDistance } from "../domain/route-distance";
import type { ServiceLevel } from "@tawsil/domain";
import type { EligibilityChecker, MarginMonitor, RateCardSource } from "./ports";

/** The request as it arrives, unchecked. */
export interface QuoteRequest {
  readonly merchantId: string;
  readonly pickup: Coordinate | undefined;
  readonly destination: Coordinate | undefined;
  /** "" when the caller does not name a city. */
  readonly expectedCityCode: string;
  readonly parcel: ParcelInput | undefined;
  /** "" or "0" for prepaid. */
  readonly codAmount: string;
}

/** What the merchant may see of a quote; carrier cost and margin are deliberately absent. */
export interface Quote {
  readonly distanceMetres: number;
  readonly price: { readonly currency: "SAR"; readonly amount: string };
  readonly serviceLevel: ServiceLevel;
  readonly rateCardId: string;
  readonly rateCardVersion: number;
  readonly pickup: LocationContext;
  readonly destination: LocationContext;
}

export interface QuoteDeliveryDeps {
  readonly cities: CityMap;
  readonly routeDistance: RouteDistance;
  readonly rateCards: RateCardSource;
  readonly eligibility: EligibilityChecker;
  readonly margins: MarginMonitor;
  readonly logger: Logger;
}

/**
 * Prices a delivery for a merchant exactly as a shipment would be priced; nothing is stored.
 *
 * Local checks first (input, then coverage, then the expected city), then eligibility (from the
 * staffing dispatch publishes, in memory), the merchant's rate card and the route distance
 * concurrently, as none needs another. Their
 * outcomes are judged in a fixed order whatever finished first, so one request always fails the
 * same way: eligibility (NO_ELIGIBLE_SERVICE), rate card (NO_RATE_CARD), COD maximum
 * (COD_ABOVE_MAXIMUM), distance; a dependency that failed reports DependencyUnavailableError at
 * its place in that order.
 */
export class QuoteDelivery {
  constructor(private readonly deps: QuoteDeliveryDeps) {}

  async execute(request: QuoteRequest, signal: AbortSignal): Promise<Quote> {
    const merchantId = parseMerchantId("merchant_id", request.merchantId);
    const pickup = parseCoordinate("pickup", request.pickup);
    const destination = parseCoordinate("destination", request.destination);
    const expectedCityCode = parseOptionalCityCode("expected_city_code", request.expectedCityCode);
    const codAmount = parseCodAmount("cod_amount", request.codAmount);
    const parcel = parseParcel("parcel", request.parcel, codAmount);

    const coverage = resolveCoverage(this.deps.cities, pickup, destination, expectedCityCode);
    const from = { coordinate: pickup, cityCode: coverage.cityCode };
    const to = { coordinate: destination, cityCode: coverage.cityCode };

    const [eligibility, rateCard, distance] = await Promise.allSettled([
      this.deps.eligibility.check(coverage.cityCode, parcel, signal),
      this.deps.rateCards.current(merchantId, signal),
      this.deps.routeDistance.metres(from, to, signal),
    ]);
    const verdict = outcome(eligibility);
    if (!verdict.eligible) {
      throw new FailedPreconditionError("NO_ELIGIBLE_SERVICE", `no service can carry this parcel in ${coverage.cityCode}`);
    }
    const card = outcome(rateCard);
    checkCodAmount(card.terms, codAmount);
    const distanceMetres = outcome(distance);

    const price = priceDelivery(card.terms, {
      distanceMetres,
      weightGrams: parcel.totalWeightGrams,
      codAmount,
      requirements: parcel.requirements,
    });
    if (marginOf(price.net, verdict.serviceLevel, distanceMetres).isNegative()) this.deps.margins.negativeMargin(verdict.serviceLevel);

    const quote: Quote = {
      distanceMetres,
      price: { currency: "SAR", amount: price.total.toFixed(2) },
      serviceLevel: verdict.serviceLevel,
      rateCardId: card.id,
      rateCardVersion: card.version,
      pickup: coverage.pickup,
      destination: coverage.destination,
    };
    // Coordinates stay out of the log (they locate a recipient); so do carrier cost and margin.
    this.deps.logger.debug(
      { merchantId, cityCode: coverage.cityCode, distanceMetres, serviceLevel: quote.serviceLevel, price: quote.price.amount, rateCardVersion: card.version },
      "delivery quoted",
    );
    return quote;
  }
}

function outcome<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}
