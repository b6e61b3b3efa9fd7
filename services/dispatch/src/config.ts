import { adminEnv, commonEnv, consumerEnv, databaseEnv, kafkaEnv, loadConfig, withDatabaseTls, outboxRetentionEnv, peerUrl, retentionEnv } from "@tawsil/config";
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
     * The dispatcher has no polling round: it wakes on notifications (new
     * job, driver freed, offer ended) and on a timer at the earliest offer expiry. This is the
     * leader's safety net, for what no notification announces (a catalogue edit, an unresolved
     * job's back-off ending, a wake-up lost with a leader): it checks due offers, offered jobs
     * without an offer and free drivers, work bounded by the drivers rather than by the backlog.
     */
    DISPATCHER_SAFETY_NET_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
    /**
     * One replica leads the dispatcher (a session advisory lock). A
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
  });

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return withDatabaseTls(loadConfig(schema, env));
}
