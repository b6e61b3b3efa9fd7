import { commonEnv, databaseEnv, kafkaEnv, loadConfig } from "@tawsil/config";
import type { z } from "zod";

const schema = commonEnv.extend(databaseEnv.shape).extend(kafkaEnv.shape);

export type Config = z.output<typeof schema>;

/** Parsed once at start-up; every problem is reported together. */
export function readConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(schema, env);
}
