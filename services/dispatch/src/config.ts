import { commonEnv, databaseEnv, kafkaEnv, loadConfig, peerUrl } from "@tawsil/config";
import { z } from "zod";

const schema = commonEnv
  .extend(databaseEnv.shape)
  .extend(kafkaEnv.shape)
  .extend({
    /** How often each replica reloads the carrier catalogue; an operator's edit is live after at most this. */
    CATALOGUE_REFRESH_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    /** The shipment service: reservations and dispatch steps go through it (it owns shipment state). */
    SHIPMENT_SERVICE_URL: peerUrl,
    /** Deadline of each call to the shipment service. */
    PEER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
    /** How long a driver has to accept an offer before the next candidate is offered. */
    OFFER_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
    /** After this long without an accepted offer a shipment becomes DISPATCH_UNRESOLVED. */
    DISPATCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(86_400_000).default(300_000),
    /** Pause between two rounds of the dispatcher (offers, expiries, retries). */
    DISPATCHER_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
    /** The simulated driver fleet; only ever runs when TAWSIL_ENVIRONMENT is sandbox. */
    SANDBOX_FLEET_ENABLED: z
      .enum(["true", "false"])
      .default("true")
      .transform((value) => value === "true"),
    /** Speed of simulated drivers; time-compressed so a delivery takes well under a minute. */
    SANDBOX_SPEED_KMH: z.coerce.number().positive().max(100_000).default(600),
    /** Share of simulated deliveries that fail (with a reason code), 0 to 1. */
    SANDBOX_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0.05),
  });

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(schema, env);
}
