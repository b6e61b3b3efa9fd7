import type { Logger } from "@tawsil/logging";
import { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { createMetrics, createPeerClient, processIdentity, startInProcess, type InProcessService, type Metrics, type ReadinessCheck, type ServiceParts, type ServiceSpec } from "@tawsil/rpc";
import { QuoteDelivery } from "./app/quote-delivery";
import { StaffingIndex } from "./app/staffing-index";
import type { Config } from "./config";
import { GreatCircleDistance, type RouteDistance } from "./domain/route-distance";
import { loadCityMap } from "./infra/city-data";
import { MarginCounter } from "./infra/margin-counter";
import { MerchantRateCards } from "./infra/merchant-rate-cards";
import { OsrmRouteDistance } from "./infra/osrm-route-distance";
import { CALLERS } from "./rpc/callers";
import { pricingService } from "./rpc/pricing-service";
import { connectKafka, kafkaConnection } from "@tawsil/events";
import type { Kafka } from "kafkajs";
import { listenToMerchantChanges } from "./consumers/merchant-changes";
import { feedCityStaffing } from "./consumers/city-staffing";

/** Fully-qualified names the gRPC health protocol answers for. */
export const SERVICE_NAMES = [PricingService.typeName] as const;

export interface PricingServiceParts extends ServiceParts {
  /**
   * None here: pricing owns no database, and a peer that is down fails quotes with Unavailable
   * rather than making pricing unready. pricingProcess adds the city staffing feed's.
   */
  readonly checks: readonly ReadinessCheck[];
  /** Holds the negative-margin counter next to the RPC metrics. */
  readonly metrics: Metrics;
  /** Rate cards as this replica knows them; main.ts keeps it fresh from merchant events. */
  readonly rateCardCache: MerchantRateCards["cache"];
  /** Eligibility as dispatch last published it; pricingProcess feeds it from Kafka, tests as they need. */
  readonly staffing: StaffingIndex;
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
  const staffing = new StaffingIndex();
  const quoteDelivery = new QuoteDelivery({
    cities,
    routeDistance,
    rateCards,
    eligibility: staffing,
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
    staffing,
  };
}

export interface RunningPricingService extends InProcessService {
  /** The eligibility index, for a test to feed with dispatch's CityStaffing messages. */
  readonly staffing: StaffingIndex;
}

/**
 * The service in-process on HOST:PORT (port 0 picks a free one), without signal handling: for
 * tests. With a broker it also reads dispatch.city-staffing.v1 as pricingProcess does (and is
 * ready only once caught up); without one, its staffing index is the test's to feed.
 */
export async function startPricingService(config: Config, logger: Logger, opts: { kafka?: Kafka } = {}): Promise<RunningPricingService> {
  const parts = await composePricingService(config, logger);
  const feed = opts.kafka ? feedCityStaffing(opts.kafka, parts.staffing, logger) : undefined;
  await feed?.consumer.start();
  const running = await startInProcess({
    name: "pricing",
    config,
    logger,
    serviceNames: SERVICE_NAMES,
    routes: parts.routes,
    callers: parts.callers,
    checks: [...parts.checks, ...(feed ? [feed.readiness] : [])],
    closers: [...(feed ? [{ name: "city-staffing", close: () => feed.close() }] : []), ...parts.closers],
    metrics: parts.metrics,
  });
  return { ...running, staffing: parts.staffing };
}

/**
 * The whole process as main.ts runs it: the service, the city staffing feed and the merchant-change
 * listener. Readiness waits for the staffing feed to be caught up (a replica that has not read it
 * would refuse every quote NO_ELIGIBLE_SERVICE); once ready, quotes go on from memory while the
 * broker is away, and the rate-card cache's entries are bounded by RATE_CARD_CACHE_MAX_AGE_MS.
 */
export async function pricingProcess(config: Config, logger: Logger): Promise<ServiceSpec> {
  const parts = await composePricingService(config, logger);
  const broker = connectKafka({ clientId: "pricing", logger, ...kafkaConnection(config) });
  const staffingFeed = feedCityStaffing(broker.kafka, parts.staffing, logger);
  staffingFeed.consumer.startInBackground();
  const merchantChanges = listenToMerchantChanges(broker.kafka, parts.rateCardCache, logger);
  merchantChanges.startInBackground();
  const closers = [{ name: "city-staffing", close: () => staffingFeed.close() }, { name: "merchant-changes", close: () => merchantChanges.stop() }, ...parts.closers];
  const checks = [...parts.checks, staffingFeed.readiness];
  return { name: "pricing", config, logger, serviceNames: SERVICE_NAMES, routes: parts.routes, callers: parts.callers, checks, metrics: parts.metrics, closers };
}
