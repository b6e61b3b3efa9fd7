import { adminEnv, commonEnv, databaseEnv, kafkaEnv, loadConfig, withDatabaseTls, outboxRetentionEnv, retentionEnv } from "@tawsil/config";
import { z } from "zod";

/** Token issuers by environment; the gateway verifies `iss` against the same defaults. */
export const DEFAULT_TOKEN_ISSUERS = { sandbox: "https://sandbox.api.tawsil.sa", production: "https://api.tawsil.sa" } as const;
export const DEFAULT_TOKEN_AUDIENCE = "https://api.tawsil.sa/v2";
/** Drivers' tokens name another audience, so a merchant route never admits one by mistake. */
export const DEFAULT_DRIVER_TOKEN_AUDIENCE = "https://api.tawsil.sa/v2/driver";

/** AES-256 needs exactly 32 bytes; anything else is a deployment mistake caught at start-up. */
const encryptionKey = z
  .string()
  .regex(/^[A-Za-z0-9+/]+={0,2}$/, "expected standard base64")
  .transform((value) => Buffer.from(value, "base64"))
  .refine((key) => key.length === 32, "expected base64 of exactly 32 bytes (openssl rand -base64 32)");

/** Keys in a comma-separated list, each as encryptionKey; empty: none. */
const encryptionKeys = z
  .string()
  .default("")
  .transform((value) => value.split(",").map((key) => key.trim()).filter(Boolean))
  .pipe(z.array(encryptionKey));

/** Every setting of the process; scripts/settings-tables.ts turns it into its README's table. */
export const schema = commonEnv
  .extend(databaseEnv.shape)
  // Its admin RPCs listen apart (ADMIN_HOST:ADMIN_PORT).
  .extend(adminEnv.shape)
  // Merchant changes leave through the outbox to merchant.merchant.events.v1.
  .extend(kafkaEnv.shape)
  .extend(retentionEnv.shape)
  .extend(outboxRetentionEnv.shape)
  .extend({
    /** `iss` of every token; defaults by TAWSIL_ENVIRONMENT. */
    TOKEN_ISSUER: z.url().optional(),
    /** `aud` of every token. */
    TOKEN_AUDIENCE: z.string().min(1).default(DEFAULT_TOKEN_AUDIENCE),
    /** `aud` of every driver's token (decisions.md section 17); the gateway's setting must match. */
    DRIVER_TOKEN_AUDIENCE: z.string().min(1).default(DEFAULT_DRIVER_TOKEN_AUDIENCE),
    /** Lifetime of an access token; a retired signing key stays published this long plus skew. */
    TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
    /** Key-encryption key sealing the signing keys' private halves at rest. */
    SIGNING_KEY_ENCRYPTION_KEY: encryptionKey,
    /**
     * Other keys signing keys are opened with, never sealed with, comma-separated: while
     * SIGNING_KEY_ENCRYPTION_KEY is rotated (deploy/README.md), first the next key, then the old one
     * until a signing key rotation has sealed the current signing key under the new one.
     */
    SIGNING_KEY_DECRYPTION_KEYS: encryptionKeys,
  })
  .transform((env) => ({ ...env, TOKEN_ISSUER: env.TOKEN_ISSUER ?? DEFAULT_TOKEN_ISSUERS[env.TAWSIL_ENVIRONMENT] }));

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return withDatabaseTls(loadConfig(schema, env));
}
