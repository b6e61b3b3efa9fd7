import { commonEnv, loadConfig, peerUrl } from "@tawsil/config";
import { z } from "zod";

export const SERVICES = ["merchant", "shipment", "pricing", "dispatch", "tracking", "webhook"] as const;
export type ServiceName = (typeof SERVICES)[number];

const schema = commonEnv.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** The public base address: problem types and links are built from it. */
  PUBLIC_BASE_URL: z.url().default("http://localhost:8080"),
  MERCHANT_SERVICE_URL: peerUrl,
  SHIPMENT_SERVICE_URL: peerUrl,
  PRICING_SERVICE_URL: peerUrl,
  DISPATCH_SERVICE_URL: peerUrl,
  TRACKING_SERVICE_URL: peerUrl,
  WEBHOOK_SERVICE_URL: peerUrl,
  /** Deadline for one peer's readiness answer inside the gateway's /readyz. */
  READINESS_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
});

export type GatewayConfig = z.output<typeof schema>;

export function readConfig(env: Record<string, string | undefined>): GatewayConfig {
  return loadConfig(schema, env);
}

export function peerUrls(config: GatewayConfig): Record<ServiceName, string> {
  return {
    merchant: config.MERCHANT_SERVICE_URL,
    shipment: config.SHIPMENT_SERVICE_URL,
    pricing: config.PRICING_SERVICE_URL,
    dispatch: config.DISPATCH_SERVICE_URL,
    tracking: config.TRACKING_SERVICE_URL,
    webhook: config.WEBHOOK_SERVICE_URL,
  };
}
