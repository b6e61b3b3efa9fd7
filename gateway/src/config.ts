import { commonEnv, kafkaEnv, loadConfig, peerUrl } from "@tawsil/config";
import { z } from "zod";
import { parseProxyRanges } from "./request/trusted-proxies";

/** The services the gateway's routes call, and so the only ones it reaches (dispatch for the driver routes alone). */
export const SERVICES = ["merchant", "shipment", "pricing", "tracking", "webhook", "dispatch"] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Every setting of the process; scripts/settings-tables.ts turns it into its README's table. */
export const schema = commonEnv
  // Access revocations (AccessRevoked on merchant.merchant.events.v1); the gateway's readiness does not depend on the broker.
  .extend(kafkaEnv.shape)
  .extend({
  /** The HTTP port: the REST API, /healthz and /readyz (/metrics is on METRICS_PORT). */
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** The public base address: problem types and links are built from it. */
  PUBLIC_BASE_URL: z.url().default("http://localhost:8080"),
  /** The merchant service: tokens, clients, saved locations, JWKS. */
  MERCHANT_SERVICE_URL: peerUrl,
  /** The shipment service: creates, reads, lists and cancels. */
  SHIPMENT_SERVICE_URL: peerUrl,
  /** The pricing service: price estimates. */
  PRICING_SERVICE_URL: peerUrl,
  /** The tracking service: public tracking and the customer page. */
  TRACKING_SERVICE_URL: peerUrl,
  /** The webhook service: the merchant's endpoint and secret. */
  WEBHOOK_SERVICE_URL: peerUrl,
  /** The dispatch service: the drivers' routes (/v2/driver: shift, fixes, offers, jobs, steps). */
  DISPATCH_SERVICE_URL: peerUrl,
  /** How often the gateway asks a service's health while it is not known healthy (a down one's routes answer 503 at once until it is back). */
  PEER_HEALTH_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  /** How often it asks a service that answered SERVING; unset: 10 × PEER_HEALTH_INTERVAL_MS. A closed connection or a call that finds the service unreachable has it asked at once. */
  PEER_HEALTH_STEADY_INTERVAL_MS: z.coerce.number().int().positive().optional(),
  /** Deadline of one health answer; a late one counts for nothing (a slow service is not down). */
  PEER_HEALTH_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
  /** Deadline of a call to a service when the route sets none. */
  PEER_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** Tokens must carry this issuer (the merchant service of the same environment signs them). */
  TOKEN_ISSUER: z.url().optional(),
  /** Tokens must carry this audience (`aud`). */
  TOKEN_AUDIENCE: z.string().min(1).default("https://api.tawsil.sa/v2"),
  /** Drivers' tokens carry this audience instead (decisions.md section 17): they open /v2/driver routes only. */
  DRIVER_TOKEN_AUDIENCE: z.string().min(1).default("https://api.tawsil.sa/v2/driver"),
  /** The longest an access token lives (the merchant service's TOKEN_TTL_SECONDS or more): how far back a starting replica reads revocations. */
  TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  /** Accepted clock difference for exp, nbf and iat (decisions.md section 10). */
  TOKEN_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).default(60),
  /** Request bodies above this many bytes are refused with 413 before they are read (decisions.md section 14: 256 KiB). */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(256 * 1024),
  /** Per OAuth client (decisions.md section 14): sustained requests per second. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(100),
  /** Per OAuth client (decisions.md section 14): requests allowed in a burst above the sustained rate. */
  RATE_LIMIT_BURST: z.coerce.number().int().positive().default(200),
  /** Per driver (their app's calls to /v2/driver): sustained requests per second. */
  DRIVER_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(10),
  /** Per driver: requests allowed in a burst above the sustained rate (a batch of queued fixes and steps after a dead zone). */
  DRIVER_RATE_LIMIT_BURST: z.coerce.number().int().positive().default(40),
  /** Token endpoint: requests per minute per client id. */
  TOKEN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(20),
  /** Token endpoint: requests per minute from one client address, whatever the client ids (random ids from one address stop here). */
  TOKEN_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().positive().default(120),
  /** Token endpoint, all clients together, per replica: token requests per second passed to the merchant service (each costs it a scrypt verification). */
  TOKEN_GLOBAL_RATE_PER_SECOND: z.coerce.number().positive().default(50),
  /** Token endpoint, all clients together, per replica: requests allowed in a burst above TOKEN_GLOBAL_RATE_PER_SECOND. */
  TOKEN_GLOBAL_BURST: z.coerce.number().int().positive().default(100),
  /**
   * Address ranges of the proxies in front of the gateway (the ingress controller's pods: the
   * cluster's pod CIDR), comma-separated CIDRs. X-Forwarded-For is read only when the connection
   * comes from inside them, from the right, skipping entries inside them: the first other address
   * is the client's (the per-address limits). Unset: no proxy is trusted, the peer address is the
   * client's (make dev).
   */
  TRUSTED_PROXY_CIDRS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const parsed = parseProxyRanges(value ?? "");
      if ("ranges" in parsed) return parsed.ranges;
      ctx.addIssue({ code: "custom", message: `expected comma-separated CIDRs such as 10.0.0.0/8,fd00::/8; ${JSON.stringify(parsed.invalid)} is not one` });
      return z.NEVER;
    }),
  /**
   * Replaced by TRUSTED_PROXY_CIDRS: a hop count believed the last X-Forwarded-For entry from any
   * caller, so a pod reaching the gateway directly picked its own address. Set, the gateway refuses
   * to start rather than trust differently than configured.
   */
  TRUSTED_PROXY_HOPS: z
    .string()
    .optional()
    .refine((value) => value === undefined, "replaced by TRUSTED_PROXY_CIDRS (the proxies' address ranges, e.g. the cluster's pod CIDR); remove TRUSTED_PROXY_HOPS"),
  /** Failed client authentications per minute that lock a client id. */
  AUTH_FAILURES_BEFORE_LOCKOUT: z.coerce.number().int().positive().default(5),
  /** How long a locked client id stays locked. */
  AUTH_LOCKOUT_SECONDS: z.coerce.number().int().positive().default(60),
  /**
   * The Redis the gateway replicas share for their limits (redis:// or rediss://; a Secret), so each
   * limit holds for the deployment, not per replica (decisions.md section 14). Unset: each replica
   * counts in its own memory (make dev, a single gateway). Required when TAWSIL_ENVIRONMENT is production.
   */
  RATE_LIMIT_REDIS_URL: z.string().regex(/^rediss?:\/\/./, "expected a redis:// or rediss:// URL").optional(),
  /** Deadline of one limits call to that Redis; past it (or while it is unreachable) the request is limited by the replica's own memory, never refused or held. */
  RATE_LIMIT_REDIS_TIMEOUT_MS: z.coerce.number().int().min(5).max(1000).default(50),
  /** Public tracking (JSON and the customer page together): requests per minute per tracking code. */
  PUBLIC_TRACKING_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120),
  /** Public tracking (JSON and the customer page together): requests per minute per client address, across codes, unknown codes included. */
  PUBLIC_TRACKING_RATE_LIMIT_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /**
   * HMAC key (standard base64, at least 32 bytes; a Secret shared by the replicas) signing media
   * download URLs. Unset outside production: a key of the process's own, so its URLs work on it alone.
   */
  MEDIA_DOWNLOAD_SECRET: z
    .string()
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, "expected standard base64")
    .transform((value) => Buffer.from(value, "base64"))
    .refine((key) => key.length >= 32, "expected base64 of at least 32 bytes (openssl rand -base64 32)")
    .optional(),
  /** How long a media asset's downloadUrl works (decisions.md section 16: 15 minutes). */
  MEDIA_DOWNLOAD_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  /** The body limit of a media content upload alone (decisions.md section 14: 10 MiB); every other route keeps BODY_LIMIT_BYTES. */
  MEDIA_UPLOAD_LIMIT_BYTES: z.coerce.number().int().min(1024).max(100 * 1024 * 1024).default(10 * 1024 * 1024),
  /** Deadline of moving one upload or download between the client and object storage. */
  MEDIA_TRANSFER_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(60_000),
  /**
   * Share (0..1) of requests without a sampled traceparent whose trace is sampled and exported, when
   * OTEL_EXPORTER_OTLP_ENDPOINT is set. The services follow the gateway's decision (parent-based),
   * so a trace is exported whole or not at all.
   */
  OTEL_TRACES_SAMPLER_RATIO: z.coerce.number().min(0).max(1).default(0.01),
});

/** Issuers by environment; the merchant service of each environment uses the same defaults. */
const DEFAULT_ISSUERS = { sandbox: "https://sandbox.api.tawsil.sa", production: "https://api.tawsil.sa" } as const;

export type GatewayConfig = z.output<typeof schema> & { readonly TOKEN_ISSUER: string };

export function readConfig(env: Record<string, string | undefined>): GatewayConfig {
  const config = loadConfig(schema, env);
  // The replicas must verify each other's download URLs: one key for all of them.
  if (config.NODE_ENV === "production" && !config.MEDIA_DOWNLOAD_SECRET) throw new Error("MEDIA_DOWNLOAD_SECRET is required when NODE_ENV is production");
  // Without it every replica counts alone, and production's limits would multiply with the HPA.
  if (config.TAWSIL_ENVIRONMENT === "production" && !config.RATE_LIMIT_REDIS_URL) {
    throw new Error("RATE_LIMIT_REDIS_URL is required when TAWSIL_ENVIRONMENT is production: the replicas share their rate limits there (decisions.md section 14)");
  }
  return Object.freeze({ ...config, TOKEN_ISSUER: config.TOKEN_ISSUER ?? DEFAULT_ISSUERS[config.TAWSIL_ENVIRONMENT] });
}

export function peerUrls(config: GatewayConfig): Record<ServiceName, string> {
  return {
    merchant: config.MERCHANT_SERVICE_URL,
    shipment: config.SHIPMENT_SERVICE_URL,
    pricing: config.PRICING_SERVICE_URL,
    tracking: config.TRACKING_SERVICE_URL,
    webhook: config.WEBHOOK_SERVICE_URL,
    dispatch: config.DISPATCH_SERVICE_URL,
  };
}
