import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { createPeerClient } from "@tawsil/rpc";
import { capturedLogger } from "@tawsil/testing";
import { readConfig, type Config } from "../src/config";
import { startPricingService, type RunningPricingService } from "../src/server";

export { Code } from "@connectrpc/connect";
export { failure } from "@tawsil/testing";

export interface Peers {
  readonly merchantUrl: string;
  readonly dispatchUrl: string;
}

/** Pricing owns no database: its peers and its data/ folder are all it needs. */
export function testConfig(peers: Peers, env: Record<string, string> = {}): Config {
  return readConfig({
    HOST: "127.0.0.1",
    PORT: "0",
    MERCHANT_SERVICE_URL: peers.merchantUrl,
    DISPATCH_SERVICE_URL: peers.dispatchUrl,
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

export async function startTestService(peers: Peers, env: Record<string, string> = {}): Promise<TestService> {
  const { logger, lines } = capturedLogger("pricing-test");
  const running = await startPricingService(testConfig(peers, env), logger);
  return { ...running, pricing: createPeerClient(PricingService, running.url, { timeoutMs: 10_000 }), logLines: lines };
}
