import { commonEnv, loadConfig, peerUrl } from "@tawsil/config";
import { z } from "zod";
import { CITY_CENTRES } from "./domain/geo";

const millis = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);
const drivers = (fallback: number) => z.coerce.number().int().min(0).max(1000).default(fallback);

/**
 * Every setting of the process; scripts/settings-tables.ts turns it into its README's table. No
 * database and no broker: the fleet owns no data, and acts as drivers' apps and an operator do.
 */
export const schema = commonEnv.extend({
  /** The public gateway: the fleet's drivers drive only through its /v2/driver routes, each with its own OAuth client. */
  GATEWAY_URL: peerUrl,
  /** Dispatch's admin listener: registers and lists the fleet's drivers and tells the demand per carrier service and city. */
  DISPATCH_ADMIN_URL: peerUrl,
  /** The merchant service's admin listener: issues and rotates the fleet's drivers' OAuth clients. */
  MERCHANT_ADMIN_URL: peerUrl,
  /** The shipment service's admin listener: what a delivery must prove (the PIN the recipient tells the driver, sandbox only). */
  SHIPMENT_ADMIN_URL: peerUrl,
  /** Deadline of each call to an admin listener (hashing a secret takes a while). */
  ADMIN_TIMEOUT_MS: millis(100, 60_000, 10_000),
  /**
   * The cities the fleet staffs, comma-separated codes of cities with a centre (RUH, JED, DMM, MKK,
   * MED); unset, all of them. Each driver costs a registration, a hashed secret and a token at
   * start: a sandbox (or a test) whose shipments stay in one city need not wait for the others'.
   */
  FLEET_CITIES: z
    .string()
    .default("")
    .transform((list) => list.split(",").map((code) => code.trim()).filter(Boolean))
    .refine((codes) => codes.every((code) => CITY_CENTRES[code]), { message: `codes of cities with a centre: ${Object.keys(CITY_CENTRES).join(", ")}` })
    .transform((codes) => new Set(codes.length > 0 ? codes : Object.keys(CITY_CENTRES)) as ReadonlySet<string>),
  /** Drivers always on shift per carrier service (carrier and vehicle) and staffed city. */
  FLEET_DRIVERS_PER_SERVICE: drivers(2),
  /** Most drivers on shift per carrier service and city when demand grows (a backlog left by a load test). */
  FLEET_MAX_DRIVERS_PER_SERVICE: drivers(30),
  /**
   * Drivers beyond FLEET_MAX_DRIVERS_PER_SERVICE kept for new shipments: while the pair is at its cap
   * and all busy, one comes on shift per shipment created in the last FLEET_RECENT_DEMAND_MS that
   * waits, takes it (dispatch gives the sandbox's newest job first) and ends its shift with that
   * delivery, so a backlog never starves a new shipment. At most this many per pair at once; 0: none.
   */
  FLEET_RESERVE_DRIVERS_PER_SERVICE: z.coerce.number().int().min(0).max(100).default(3),
  /** How new a waiting shipment is for the reserve to serve it (older ones are the backlog's). */
  FLEET_RECENT_DEMAND_MS: millis(1_000, 3_600_000, 60_000),
  /** Speed of simulated drivers; time-compressed so a delivery takes well under a minute. */
  FLEET_SPEED_KMH: z.coerce.number().positive().max(100_000).default(600),
  /** Share of simulated deliveries that fail (DELIVERY_FAILED, RECIPIENT_UNAVAILABLE), 0 to 1. */
  FLEET_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0.05),
  /** Movement timer of a driver carrying a shipment: its position advances (and a fix is buffered) every tick. */
  FLEET_TICK_MS: millis(10, 60_000, 250),
  /**
   * A moving driver's buffered fixes are POSTed together at most this often (at most 100 per POST).
   * Each fix is a database write, an event and a projection update, so this sets what the fleet
   * costs the mesh while it works; at 600 km/h 2 s moves about 330 m, and 30 fixes a minute keep
   * a position well inside the 120 s staleness.
   */
  FLEET_FIX_INTERVAL_MS: millis(50, 60_000, 2_000),
  /** How long a simulated driver takes to accept an offer. */
  FLEET_ACCEPT_DELAY_MS: millis(0, 60_000, 300),
  /** An extra driver (above FLEET_DRIVERS_PER_SERVICE) idle this long goes off shift again. */
  FLEET_IDLE_OFF_SHIFT_MS: millis(1_000, 3_600_000, 60_000),
});

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(schema, env);
}
