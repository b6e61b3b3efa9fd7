import { commonEnv, databaseEnv, kafkaEnv, loadConfig } from "@tawsil/config";
import { z } from "zod";

const schema = commonEnv
  .extend(databaseEnv.shape)
  .extend(kafkaEnv.shape)
  .extend({
    /** How often each replica reloads the carrier catalogue; an operator's edit is live after at most this. */
    CATALOGUE_REFRESH_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  });

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(schema, env);
}
