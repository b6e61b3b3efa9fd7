import { commonEnv, kafkaEnv, loadConfig, peerUrl } from "@tawsil/config";
import { z } from "zod";
import { parseCircuityFactors } from "./domain/route-distance";

/** An unset variable and an empty one mean the same: not configured. */
const blankAsUnset = (value: unknown) => (value === "" ? undefined : value);
const millis = (fallback: number) => z.coerce.number().int().min(50).max(60_000).default(fallback);

const circuityFactors = z
  .string()
  .default("")
  .transform((value, ctx) => {
    try {
      return parseCircuityFactors(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  });

/**
 * Every setting of the process; scripts/settings-tables.ts turns it into its README's table. No
 * database settings: pricing owns no data of its own, so it opens no database.
 */
export const schema = commonEnv
  // Merchant events (merchant.merchant.events.v1) keep the rate-card cache fresh; dispatch's
  // dispatch.city-staffing.v1 feeds eligibility.
  .extend(kafkaEnv.shape)
  .extend({
    /** The merchant service, for rate cards. */
    MERCHANT_SERVICE_URL: peerUrl,
    /** Longest a cached rate card is trusted without an event (bounds an event lost in a broker outage). */
    RATE_CARD_CACHE_MAX_AGE_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
    /** Deadline of each call to a peer service. */
    PEER_TIMEOUT_MS: millis(2000),
    /** An OSRM-compatible routing server; unset: great-circle distance times the city's circuity factor. */
    ROUTING_URL: z.preprocess(blankAsUnset, z.url({ protocol: /^https?$/ }).optional()),
    /** Deadline of each routing request; past it the quote fails with Unavailable. */
    ROUTING_TIMEOUT_MS: millis(2000),
    /** Overrides of the default circuity factors, "RUH=1.3,JED=1.35" (domain/route-distance.ts). */
    CIRCUITY_FACTORS: circuityFactors,
  });

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(schema, env);
}
