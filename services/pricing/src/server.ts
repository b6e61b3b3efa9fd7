import type { Logger } from "@tawsil/logging";
import { DispatchService } from "@tawsil/proto/tawsil/dispatch/v1/dispatch_service_pb";
import { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { createMetrics, createPeerClient, processIdentity, startInProcess, type InProcessService, type Metrics, type ReadinessCheck, type ServiceParts, type ServiceSpec } from "@tawsil/rpc";
import { QuoteDelivery } from "./app/quote-delivery";
import type { Config } from "./config";
import { GreatCircleDistance, type RouteDistance } from "./domain/route-distance";
import { loadCityMap } from "./infra/city-data";
import { DispatchEligibility } from "./infra/dispatch-eligibility";
import { MarginCounter } from "./infra/margin-counter";
import { MerchantRateCards } from "./infra/merchant-rate-cards";
import { OsrmRouteDistance } from "./infra/osrm-route-distance";
import { CALLERS } from "./rpc/callers";
import { pricingService } from "./rpc/pricing-service";
import { connectKafka } from "@tawsil/events";
import { listenToMerchantChanges } from "./consumers/merchant-changes";

/** Fully-qualified names the gRPC health protocol answers for. */
export const SERVICE_NAMES = [PricingService.typeName] as const;

export interface PricingServiceParts extends ServiceParts {
  /**
   * None: pricing owns no database, and a peer that is down fails quotes with Unavailable rather
   * than making pricing unready. Ready once it listens with its city data loaded.
   */
  readonly checks: readonly ReadinessCheck[];
  /** Holds the negative-margin counter next to the RPC metrics. */
  readonly metrics: Metrics;
  /** Rate cards as this replica knows them; main.ts keeps it fresh from merchant events. */
  readonly rateCardCache: MerchantRateCards["cache"];
}

/**
 * Builds the service from its configuration: city data (refused at start-up when invalid), the
 * route distance model, peer clients, the use case and its RPC handler. No database: pricing owns
 * no data of its own (cities and service areas ship in data/, rate cards are merchant's).
 */
export async function composePricingService(config: Config, logger: Logger): Promise<PricingServiceParts> {
  const cities = loadCityMap();
  const circuity = new GreatCircleDistance(config.CIRCUITY_FACTORS);
  for (const city of cities.cities) circuity.factorOf(city.code); // every served city needs a factor, even when OSRM is used
  const routeDistance: RouteDistance = config.ROUTING_URL
    ? new OsrmRouteDistance({ baseUrl: config.ROUTING_URL, timeoutMs: config.ROUTING_TIMEOUT_MS })
    : circuity;
  logger.info({ cities: cities.cities.map((city) => city.code), routing: config.ROUTING_URL ? "osrm" : "great-circle" }, "pricing model ready");

  const metrics = createMetrics("pricing");
  const identity = processIdentity("pricing", config, logger, CALLERS);
  const peer = { timeoutMs: config.PEER_TIMEOUT_MS, identity: identity.self };
  const rateCards = new MerchantRateCards(createPeerClient(MerchantService, config.MERCHANT_SERVICE_URL, peer), {
    maxAgeMs: config.RATE_CARD_CACHE_MAX_AGE_MS,
  });
  const quoteDelivery = new QuoteDelivery({
    cities,
    routeDistance,
    rateCards,
    eligibility: new DispatchEligibility(createPeerClient(DispatchService, config.DISPATCH_SERVICE_URL, peer)),
    margins: new MarginCounter(metrics.registry),
    logger,
  });
  return {
    routes: (router) => router.service(PricingService, pricingService({ quoteDelivery, logger })),
    callers: identity.callers,
    checks: [],
    closers: [],
    metrics,
    rateCardCache: rateCards.cache,
  };
}

export type RunningPricingService = InProcessService;

/** The service in-process on HOST:PORT (port 0 picks a free one), without signal handling: for tests. */
export async function startPricingService(config: Config, logger: Logger): Promise<RunningPricingService> {
  const parts = await composePricingService(config, logger);
  return startInProcess({ name: "pricing", config, logger, serviceNames: SERVICE_NAMES, routes: parts.routes, callers: parts.callers, checks: parts.checks, closers: parts.closers, metrics: parts.metrics });
}

/**
 * The whole process as main.ts runs it: the service and the merchant-change listener. The broker
 * only keeps the rate-card cache fresh: it is not part of pricing's readiness, since quotes go on
 * (with entries bounded by RATE_CARD_CACHE_MAX_AGE_MS) while it is away.
 */
export async function pricingProcess(config: Config, logger: Logger): Promise<ServiceSpec> {
  const parts = await composePricingService(config, logger);
  const broker = connectKafka({ clientId: "pricing", brokers: config.KAFKA_BROKERS, logger });
  const merchantChanges = listenToMerchantChanges(broker.kafka, parts.rateCardCache, logger);
  merchantChanges.startInBackground();
  const closers = [{ name: "merchant-changes", close: () => merchantChanges.stop() }, broker, ...parts.closers];
  return { name: "pricing", config, logger, serviceNames: SERVICE_NAMES, routes: parts.routes, callers: parts.callers, checks: parts.checks, metrics: parts.metrics, closers };
}
