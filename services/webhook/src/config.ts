import { adminEnv, commonEnv, consumerEnv, databaseEnv, kafkaEnv, loadConfig, withDatabaseTls, retentionEnv, retentionPeriod } from "@tawsil/config";
import { z } from "zod";
import { DNS_DEADLINE_MS } from "./infra/dns-resolver";

/** A key of exactly 256 bits, as standard base64 (openssl rand -base64 32). */
const secretKey = z
  .string()
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, "expected standard base64")
  .transform((value) => new Uint8Array(Buffer.from(value, "base64")))
  .refine((key) => key.length === 32, "expected base64 of 32 bytes (openssl rand -base64 32)");

/** Keys in a comma-separated list, each as secretKey; empty: none. */
const secretKeys = z
  .string()
  .default("")
  .transform((value) => value.split(",").map((key) => key.trim()).filter(Boolean))
  .pipe(z.array(secretKey));

const flag = z.enum(["true", "false"]).transform((value) => value === "true");

/** Every setting of the process; scripts/settings-tables.ts turns it into its README's table. */
export const schema = commonEnv
  .extend(databaseEnv.shape)
  // Its admin RPCs (dead letters) listen apart (ADMIN_HOST:ADMIN_PORT).
  .extend(adminEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(retentionEnv.shape)
  .extend(consumerEnv.shape)
  .extend({
    /** Seals the signing secrets at rest (AES-256-GCM); each sealed secret names the key that sealed it. */
    WEBHOOK_SECRET_ENCRYPTION_KEY: secretKey,
    /**
     * Other keys secrets are opened with, never sealed with, comma-separated: during a rotation
     * (deploy/README.md), first the next key (so a replica still on the old key opens what a replica
     * on the new one sealed), then the old key until the background re-seal has moved every secret
     * to WEBHOOK_SECRET_ENCRYPTION_KEY (webhook_secrets_sealed_under_other_keys is 0).
     */
    WEBHOOK_SECRET_DECRYPTION_KEYS: secretKeys,
    /** How often each replica re-seals, under WEBHOOK_SECRET_ENCRYPTION_KEY, secrets sealed under another key; only while WEBHOOK_SECRET_DECRYPTION_KEYS is set. */
    WEBHOOK_RESEAL_INTERVAL_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
    /** Endpoints one re-seal transaction takes (locked, skipped by the other replicas), so it never holds many rows. */
    WEBHOOK_RESEAL_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(100),
    /** Local use and tests only: allow http and loopback receivers. Off in production (decisions.md section 11). */
    WEBHOOK_ALLOW_INSECURE_URLS: flag.default(false),
    /** Deadline of one delivery attempt (decisions.md section 11: 15 s). */
    WEBHOOK_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(15_000),
    /** First wait of the retry schedule, doubling after each failure (decisions.md section 11: 30 s); shorter only for fault runs. */
    WEBHOOK_FIRST_RETRY_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
    /** Sends in flight per replica: a pool that claims due deliveries as its slots free, each attempt on its own (no rounds). */
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(100),
    /** Sends in flight per endpoint per replica (decisions.md section 11): a hanging receiver holds at most this many slots. */
    WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
    /** How long a claimed delivery is this replica's before another may attempt it; at least the attempt timeout plus the DNS deadline plus 30 s, and no send starts with less than its timeout plus 10 s of it left. */
    WEBHOOK_LEASE_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
    /**
     * This replica's stable name, one per replica (in Kubernetes the pod's name, which a container
     * restart keeps): started again under it, the replica takes back the deliveries it held when it
     * died instead of leaving them to WEBHOOK_LEASE_MS. Unset, a killed replica's deliveries wait
     * for their lease. Two live replicas must never share one.
     */
    WEBHOOK_REPLICA_ID: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, "letters, digits, '.', '_' and '-', at most 100")
      .optional(),
    /** Name servers the delivery guard asks (`ip` or `ip:port`, comma-separated); the pod's own (/etc/resolv.conf) when unset. */
    WEBHOOK_DNS_SERVERS: z
      .string()
      .optional()
      .transform((value) => (value ?? "").split(",").map((server) => server.trim()).filter((server) => server !== "")),
    /** First idle sleep of the sender between looks at the queue; doubles with each look in a row that finds nothing, up to 32 times it. */
    WEBHOOK_IDLE_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
    /** Secret rotations per merchant per hour (decisions.md section 14). */
    WEBHOOK_ROTATIONS_PER_HOUR: z.coerce.number().int().min(1).default(5),
    /** Days a webhook delivery and its attempts are kept after its last attempt. */
    WEBHOOK_DELIVERY_RETENTION_DAYS: retentionPeriod(30, 3650),
  })
  .refine((c) => c.WEBHOOK_LEASE_MS >= c.WEBHOOK_ATTEMPT_TIMEOUT_MS + DNS_DEADLINE_MS + 30_000, {
    path: ["WEBHOOK_LEASE_MS"],
    message: `must be at least WEBHOOK_ATTEMPT_TIMEOUT_MS + ${DNS_DEADLINE_MS} ms (the DNS deadline) + 30000 ms`,
  })
  .refine((c) => !(c.TAWSIL_ENVIRONMENT === "production" && c.WEBHOOK_ALLOW_INSECURE_URLS), {
    path: ["WEBHOOK_ALLOW_INSECURE_URLS"],
    message: "must be false in production",
  });

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return withDatabaseTls(loadConfig(schema, env));
}
