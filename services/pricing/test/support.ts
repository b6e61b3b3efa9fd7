import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { capturedLogger } from "@tawsil/testing";
import type { Kafka } from "kafkajs";
import { query } from "../../dispatch/test/support";
import type { StaffingIndex } from "../src/app/staffing-index";
import { readConfig, type Config } from "../src/config";
import { CITY_STAFFING_TOPIC } from "@tawsil/topology";
import { decodeCityStaffing } from "../src/consumers/city-staffing-codec";
import { startPricingService, type RunningPricingService } from "../src/server";

export { Code } from "@connectrpc/connect";
export { failure } from "@tawsil/testing";

export interface Peers {
  readonly merchantUrl: string;
  /**
   * A dispatch database whose service has started (it records every city's staffing in its
   * outbox then): the test service's eligibility index is fed with those messages, as Kafka
   * would. Omitted when the test service reads the broker itself (`kafka`).
   */
  readonly dispatchDatabaseUrl?: string;
}

/** Pricing owns no database: its peers and its data/ folder are all it needs. */
export function testConfig(peers: Peers, env: Record<string, string> = {}): Config {
  return readConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    MERCHANT_SERVICE_URL: peers.merchantUrl,
    // In-process tests run no merchant-event listener: read the rate card afresh on every quote.
    KAFKA_BROKERS: "127.0.0.1:9092",
    RATE_CARD_CACHE_MAX_AGE_MS: "0",
    SHUTDOWN_GRACE_MS: "200",
    LOG_LEVEL: "debug",
    ...env,
  });
}

export interface TestService extends RunningPricingService {
  readonly pricing: ReturnType<typeof createPeerClient<typeof PricingService>>;
  readonly logLines: string[];
}

export async function startTestService(peers: Peers, env: Record<string, string> = {}, opts: { kafka?: Kafka } = {}): Promise<TestService> {
  const { logger, lines } = capturedLogger("pricing-test");
  const running = await startPricingService(testConfig(peers, env), logger, opts);
  if (peers.dispatchDatabaseUrl) await feedFromOutbox(peers.dispatchDatabaseUrl, running.staffing);
  return { ...running, pricing: createPeerClient(PricingService, running.url, { timeoutMs: 10_000 }), logLines: lines };
}

/**
 * Applies the CityStaffing messages dispatch has recorded, in their order, as the Kafka feed
 * would once its relay sent them: dispatch's computation and pricing's decoding are the real ones;
 * only the broker is skipped.
 */
export async function feedFromOutbox(dispatchDatabaseUrl: string, staffing: StaffingIndex): Promise<void> {
  const rows = await query<{ payload: Uint8Array }>(dispatchDatabaseUrl, "SELECT payload FROM outbox_event WHERE topic = $1 ORDER BY seq", CITY_STAFFING_TOPIC);
  for (const row of rows) {
    const decoded = decodeCityStaffing(row.payload);
    staffing.apply(decoded.cityCode, decoded.services);
  }
}
