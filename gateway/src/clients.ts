import type { Client } from "@connectrpc/connect";
import { DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { MediaAssetService } from "@tawsil/proto/tawsil/shipment/v1/media_asset_service_pb";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { TrackingService } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import { createPeerClient, type ServiceIdentity } from "@tawsil/rpc";
import type { GatewayConfig } from "./config";
import { failFast } from "./peers/fail-fast";
import type { PeerHealthBoard } from "./peers/health-watch";

/**
 * The services the gateway calls, one multiplexed HTTP/2 session per replica of each, created once.
 * A route needs exactly the peers it calls: each client refuses at once while its peer is known
 * down (peers/fail-fast.ts), so a service that is down fails only the routes that call it.
 */
export interface Peers {
  readonly merchant: Client<typeof MerchantService>;
  readonly pricing: Client<typeof PricingService>;
  readonly shipment: Client<typeof ShipmentService>;
  /** The shipment service's media assets: the same service, health and deadline. */
  readonly mediaAssets: Client<typeof MediaAssetService>;
  readonly tracking: Client<typeof TrackingService>;
  readonly webhook: Client<typeof WebhookService>;
  /** Dispatch's driver API: the /v2/driver routes alone. */
  readonly drivers: Client<typeof DriverService>;
}

/** `identity` signs every call with the gateway's service token (processIdentity("gateway", ...).self). */
export function createPeers(config: GatewayConfig, health: PeerHealthBoard, identity?: ServiceIdentity): Peers {
  const opts = (name: keyof PeerHealthBoard["peers"], timeoutMs = config.PEER_TIMEOUT_MS) => ({ timeoutMs, identity, interceptors: [failFast(health.peers[name])] });
  return {
    merchant: createPeerClient(MerchantService, config.MERCHANT_SERVICE_URL, opts("merchant")),
    pricing: createPeerClient(PricingService, config.PRICING_SERVICE_URL, opts("pricing")),
    // A create may wait up to 5 s for a concurrent duplicate before the service answers.
    shipment: createPeerClient(ShipmentService, config.SHIPMENT_SERVICE_URL, opts("shipment", Math.max(config.PEER_TIMEOUT_MS, 10_000))),
    // Completing an upload reads the stored object back (up to 10 MiB) before it answers.
    mediaAssets: createPeerClient(MediaAssetService, config.SHIPMENT_SERVICE_URL, opts("shipment", Math.max(config.PEER_TIMEOUT_MS, 30_000))),
    tracking: createPeerClient(TrackingService, config.TRACKING_SERVICE_URL, opts("tracking")),
    webhook: createPeerClient(WebhookService, config.WEBHOOK_SERVICE_URL, opts("webhook")),
    drivers: createPeerClient(DriverService, config.DISPATCH_SERVICE_URL, opts("dispatch")),
  };
}
