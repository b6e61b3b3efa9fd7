import type { Client } from "@connectrpc/connect";
import { MerchantService } from "@tawsil/proto/tawsil/merchant/v1/merchant_service_pb";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { TrackingService } from "@tawsil/proto/tawsil/tracking/v1/tracking_service_pb";
import { WebhookService } from "@tawsil/proto/tawsil/webhook/v1/webhook_service_pb";
import { createPeerClient, type ServiceIdentity } from "@tawsil/rpc";
import type { GatewayConfig } from "./config";

/** The services the gateway calls, one multiplexed HTTP/2 session per replica of each, created once. */
export interface Peers {
  readonly merchant: Client<typeof MerchantService>;
  readonly pricing: Client<typeof PricingService>;
  readonly shipment: Client<typeof ShipmentService>;
  readonly tracking: Client<typeof TrackingService>;
  readonly webhook: Client<typeof WebhookService>;
}

/** `identity` signs every call with the gateway's service token (processIdentity("gateway", ...).self). */
export function createPeers(config: GatewayConfig, identity?: ServiceIdentity): Peers {
  const opts = { timeoutMs: config.PEER_TIMEOUT_MS, identity };
  return {
    merchant: createPeerClient(MerchantService, config.MERCHANT_SERVICE_URL, opts),
    pricing: createPeerClient(PricingService, config.PRICING_SERVICE_URL, opts),
    // A create may wait up to 5 s for a concurrent duplicate before the service answers.
    shipment: createPeerClient(ShipmentService, config.SHIPMENT_SERVICE_URL, { ...opts, timeoutMs: Math.max(config.PEER_TIMEOUT_MS, 10_000) }),
    tracking: createPeerClient(TrackingService, config.TRACKING_SERVICE_URL, opts),
    webhook: createPeerClient(WebhookService, config.WEBHOOK_SERVICE_URL, opts),
  };
}
