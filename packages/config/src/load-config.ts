import type { z } from "zod";

/** ConfigError lists every problem in the environment at once, so an operator fixes them in one go. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/**
 * Parses an environment with a zod schema exactly once, at start-up. The caller passes the
 * environment (this package never reads process.env) and gets a frozen, typed object or a
 * ConfigError naming every variable that is missing or wrong.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`),
    );
  }
  return Object.freeze(result.data);
}

/**
 * What a process's `readConfig` reports wrong with an environment, one "NAME: why" per problem;
 * empty when it parses. For config tests and checks that must list problems rather than stop.
 */
export function configProblems(read: (env: Record<string, string | undefined>) => unknown, env: Record<string, string | undefined>): string[] {
  try {
    read(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

/** The names of the settings `configProblems` reports, sorted. */
export const problemSettings = (read: (env: Record<string, string | undefined>) => unknown, env: Record<string, string | undefined>): string[] =>
  configProblems(read, env)
    .map((problem) => problem.split(":")[0] ?? "")
    .sort();
