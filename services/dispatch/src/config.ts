import { adminEnv, commonEnv, consumerEnv, databaseEnv, kafkaEnv, loadConfig, outboxRetentionEnv, peerUrl, retentionEnv } from "@tawsil/config";
import { z } from "zod";

/** Every setting of the process; scripts/settings-tables.ts turns it into its README's table. */
export const schema = commonEnv
  .extend(databaseEnv.shape)
  // Its admin RPCs (dead letters) listen apart (ADMIN_HOST:ADMIN_PORT).
  .extend(adminEnv.shape)
  .extend(kafkaEnv.shape)
  .extend(retentionEnv.shape)
  .extend(outboxRetentionEnv.shape)
  .extend(consumerEnv.shape)
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
    /**
     * The dispatcher and the sandbox fleet have no polling round: they wake on notifications (new
     * job, driver freed, offer made) and on a timer at the earliest offer expiry. This is the
     * leader's safety net, for what no notification announces (a catalogue edit, an unresolved
     * job's back-off ending, a wake-up lost with a leader): it checks due offers, offered jobs
     * without an offer and free drivers, work bounded by the fleet rather than by the backlog.
     */
    DISPATCHER_SAFETY_NET_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
    /**
     * One replica leads the dispatcher, and one the sandbox fleet (session advisory locks). A
     * follower tries to take over this often (so a stopped leader is replaced within it), and a
     * leader checks its session is alive; one constant query each.
     */
    LEADER_RETRY_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
    /**
     * A job that went DISPATCH_UNRESOLVED is retried when a driver frees up: at once the first
     * time, then only after this wait, doubling with each further unresolved outcome (up to 64x).
     */
    UNRESOLVED_RETRY_BACKOFF_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
    /**
     * A shipment whose pickup window starts later is first offered to drivers this long before the
     * window starts (decisions.md section 4); until then it stays READY_FOR_DISPATCH and can be
     * cancelled. 45 minutes, as the contract gives it.
     */
    PICKUP_OFFER_LEAD_MS: z.coerce.number().int().min(0).max(86_400_000).default(2_700_000),
    /**
     * Which waiting job a driver who becomes free is given first: OLDEST_FIRST keeps merchants'
     * promises in order (production's default); NEWEST_FIRST (the sandbox's default) means a
     * backlog a load test left behind never starves the shipment a developer just created.
     */
    DISPATCH_BACKLOG_ORDER: z.enum(["OLDEST_FIRST", "NEWEST_FIRST"]).optional(),
    /** The simulated driver fleet; only ever runs when TAWSIL_ENVIRONMENT is sandbox. */
    SANDBOX_FLEET_ENABLED: z
      .enum(["true", "false"])
      .default("true")
      .transform((value) => value === "true"),
    /** Speed of simulated drivers; time-compressed so a delivery takes well under a minute. */
    SANDBOX_SPEED_KMH: z.coerce.number().positive().max(100_000).default(600),
    /** Share of simulated deliveries that fail (with a reason code), 0 to 1. */
    SANDBOX_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0.05),
    /**
     * How often a simulated driver carrying a shipment reports its position (a real driver's app
     * reports every few seconds). Each report is a database write, an event and a projection
     * update, so this sets what the fleet costs while it works: at 250 ms the mesh spent about
     * half a core on a dozen busy drivers. The drivers tick together, on multiples of this
     * interval, and one transaction writes all their reports. At 600 km/h a 2 s fix moves about
     * 330 m, under one public grid cell, and 10 fixes a minute keep a position well inside the
     * 120 s staleness.
     */
    SANDBOX_LOCATION_INTERVAL_MS: z.coerce.number().int().min(50).max(60_000).default(2_000),
  });

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(schema, env);
}
