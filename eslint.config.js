// One lint setup for the whole workspace: typescript-eslint's recommended rules on every
// TypeScript file; generated code is checked by its own freshness test instead.
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { layerRules } from "./scripts/lint/layers.js";
import { keepingScriptsBoundary, scriptsBoundaryRules } from "./scripts/lint/scripts-boundary.js";

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "**/generated/**", "packages/proto/src/gen/**", ".tools/**", ".dev/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": "error",
    },
  },
  // The test infrastructure (packages/testing: brokers, containers, the mesh) talks to a developer's
  // terminal, as the scripts and the tests do; no process it starts logs through it.
  { files: ["scripts/**", "tests/**", "**/test/**", "**/*.test.ts", "packages/testing/src/**"], rules: { "no-console": "off" } },
  ...scriptsBoundaryRules,
  ...keepingScriptsBoundary(layerRules),
);
