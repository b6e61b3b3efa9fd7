import { adminEnv, commonEnv, consumerEnv, databaseEnv, kafkaEnv, loadConfig, withDatabaseTls, outboxRetentionEnv, peerUrl, retentionEnv, retentionPeriod } from "@tawsil/config";
import { z } from "zod";

/** A key of at least 256 bits, as standard base64 (openssl rand -base64 32). */
const secretKey = z
  .string()
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, "expected standard base64")
  .transform((value) => new Uint8Array(Buffer.from(value, "base64")))
  .refine((key) => key.length >= 32, "expected base64 of at least 32 bytes (openssl rand -base64 32)");

/** Every setting of the process; scripts/settings-tables.ts turns it into its README's table. */
export const schema = commonEnv
  .extend(databaseEnv.shape)
  // Its admin RPCs listen apart (ADMIN_HOST:ADMIN_PORT).
  .extend(adminEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(retentionEnv.shape)
  .extend(outboxRetentionEnv.shape)
  .extend({
    /** The merchant service: status, saved locations, branches, rate card maximums. */
    MERCHANT_SERVICE_URL: peerUrl,
    /** The pricing service: coverage, derived context, price and the terms to freeze. */
    PRICING_SERVICE_URL: peerUrl,
    /**
     * Longest a cached merchant (status, places, COD maximum) is trusted without an event. Merchant
     * events drop entries within moments; this only bounds an event lost in a broker outage.
     */
    MERCHANT_CACHE_MAX_AGE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
    /** Deadline of each call to a peer service. */
    PEER_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
    /** Where customers open tracking links: `${PUBLIC_BASE_URL}/t/<code>`. */
    PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).default("http://localhost:8080"),
    /** HMAC key deriving the tracking link code from the shipment id; tracking must share it. */
    TRACKING_LINK_SECRET: secretKey,
    /** HMAC key protecting list cursors. */
    CURSOR_SECRET: secretKey,
    /** How long a duplicate request waits for the first one with its key before IDEMPOTENCY_KEY_IN_USE. */
    IDEMPOTENCY_WAIT_MS: z.coerce.number().int().min(1).max(60_000).default(5000),
    /** How long idempotency records answer replays. */
    IDEMPOTENCY_RETENTION_HOURS: retentionPeriod(24, 24 * 30),
    /** Days a processed-event record is kept (the service consumes no topic today; the table is bounded all the same). */
    PROCESSED_EVENT_RETENTION_DAYS: consumerEnv.shape.PROCESSED_EVENT_RETENTION_DAYS,
    /** The S3 API endpoint of media storage; empty for AWS itself (the region's own endpoint). */
    S3_ENDPOINT: z.union([z.literal(""), z.url({ protocol: /^https?$/ })]).default(""),
    /** The bucket's region. */
    S3_REGION: z.string().min(1).default("us-east-1"),
    /** The private bucket holding media bytes (one per environment; its lifecycle rule is in deploy/). */
    S3_BUCKET: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, "expected an S3 bucket name"),
    /** Access key of the service's storage credentials (a Secret). */
    S3_ACCESS_KEY_ID: z.string().min(1),
    /** Secret key of the service's storage credentials (a Secret). */
    S3_SECRET_ACCESS_KEY: z.string().min(1),
    /** Bucket in the URL path rather than the host name: S3-compatible servers without bucket DNS need it. */
    S3_FORCE_PATH_STYLE: z.enum(["true", "false"]).default("false").transform((value) => value === "true"),
    /** Deadline of each call to object storage; a storage outage fails requests with Unavailable after it. */
    S3_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
    /** How long a presigned upload or download URL handed to the gateway works. */
    MEDIA_PRESIGN_SECONDS: z.coerce.number().int().min(5).max(3600).default(300),
    /** How long a media asset that no create attached lives, with its bytes (decisions.md section 18). */
    MEDIA_UNATTACHED_RETENTION_HOURS: z.coerce.number().int().min(1).max(24 * 30).default(24),
    /** Days an attached media asset and its bytes are kept after its shipment's terminal state (decisions.md section 18). */
    MEDIA_ATTACHED_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(180),
    /** Age of stored bytes without metadata (a crash between the two writes) before they are deleted. */
    MEDIA_ORPHAN_GRACE_MINUTES: z.coerce.number().int().min(1).max(24 * 60 * 7).default(60),
    /** How often media retention runs (expired unattached assets, then orphaned bytes). */
    MEDIA_RETENTION_INTERVAL_MS: z.coerce.number().int().min(1000).max(24 * 3600_000).default(10 * 60_000),
  });

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return withDatabaseTls(loadConfig(schema, env));
}
