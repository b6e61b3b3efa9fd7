// Scripts start, build, generate and measure; nothing outside scripts/ reaches into them, tests
// and their support files above all. What a test needs to know of the system (its processes,
// topics, how each runs) is declared in packages/topology, what it needs to start a broker, a
// database or the mesh is in packages/testing: a test that imported a script learned the system
// from a dev tool, and broke with the tool's next rewrite (issue 33). A test of a script lives
// beside it in scripts/; a deploy check that needs a script's output runs it, as the Makefile does.

const MESSAGE = "only scripts/ imports scripts/: take the system's facts from packages/topology and test infrastructure from packages/testing";

/** A module path with a scripts/ folder in it: `../../scripts/mesh`, `./scripts/build`. */
export const SCRIPTS_IMPORT = { regex: "(^|/)scripts/", message: MESSAGE };

export const scriptsBoundaryRules = [
  {
    files: ["**/*.ts"],
    ignores: ["scripts/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [SCRIPTS_IMPORT] }],
      "no-restricted-syntax": ["error", { selector: "ImportExpression[source.value=/(^|\\u002F)scripts\\u002F/]", message: MESSAGE }],
    },
  },
];

/**
 * The same boundary kept by configs that set no-restricted-imports of their own (the layer rules):
 * a later config's setting of a rule replaces an earlier one's, patterns and all.
 */
export const keepingScriptsBoundary = (configs) =>
  configs.map((config) => {
    const setting = config.rules?.["no-restricted-imports"];
    if (!setting) return config;
    const [level, { patterns, ...rest }] = setting;
    return { ...config, rules: { ...config.rules, "no-restricted-imports": [level, { ...rest, patterns: [...patterns, SCRIPTS_IMPORT] }] } };
  });
