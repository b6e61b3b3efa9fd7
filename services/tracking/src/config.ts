import { adminEnv, commonEnv, consumerEnv, databaseEnv, kafkaEnv, loadConfig, withDatabaseTls, peerUrl, retentionEnv, retentionPeriod } from "@tawsil/config";
import { z } from "zod";

/** Every setting of the process; scripts/settings-tables.ts turns it into its README's table. */
export const schema = commonEnv
  .extend(databaseEnv.shape)
  // Its admin RPCs (dead letters) listen apart (ADMIN_HOST:ADMIN_PORT).
  .extend(adminEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(retentionEnv.shape)
  .extend(consumerEnv.shape)
  .extend({
    /** The shipment service: the fallback read for a shipment the projection has not seen yet. */
    SHIPMENT_SERVICE_URL: peerUrl,
    /** Deadline of each call to the shipment service. */
    PEER_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(2000),
    /** Days a driver's location fix is kept after its shipment's job ended. */
    DRIVER_FIX_RETENTION_DAYS: retentionPeriod(30, 3650),
    /** Days a shipment's tracking projection is kept after its terminal state. */
    PROJECTION_RETENTION_DAYS: retentionPeriod(90, 3650),
  });

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return withDatabaseTls(loadConfig(schema, env));
}
