import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { LongestFirst } from "./tests/setup/longest-first";

const shared = {
  exclude: ["**/node_modules/**", ".tools/**", ".dev/**"],
  // The SDK's package exports point consumers at its built dist/; the workspace tests its sources
  // (the "@tawsil/source" condition, as tsconfig.json's customConditions does for tsc).
  alias: { "@tawsil/sdk": fileURLToPath(new URL("./packages/sdk/src/index.ts", import.meta.url)) },
  globalSetup: ["tests/setup/global-setup.ts"],
  testTimeout: 60_000,
  hookTimeout: 180_000,
  env: { KAFKAJS_NO_PARTITIONER_WARNING: "1" },
};

/** The unit files that replace a module with vi.mock (tests/setup/module-mocks.test.ts keeps this list whole). */
export const MODULE_MOCKS = ["services/merchant/src/infra/scrypt-secret-hash.test.ts"];

/**
 * One run for the whole workspace. The global setup provides a real PostgreSQL server and a real
 * Kafka broker of the run's own to every test file through `inject`: containers through
 * testcontainers (Docker, or podman set up by the project), else native processes (README, "Test
 * infrastructure").
 *
 * Two groups, one after the other: unit and integration files first, two at a time (two cores;
 * they share one broker and one database server, each under names of its own), then the
 * end-to-end files, two at a time as well. Each end-to-end file starts the whole mesh, whose
 * services use the architecture's fixed topics and consumer groups: two meshes at once on one
 * broker would split each other's events between them, so each of the two workers has a broker
 * of its own (tests/e2e/support/lane.ts); a mesh spends most of its time waiting (drivers, relays,
 * retries), so two at once take little more than one. The fault suite (tests/faults) runs with
 * them at its short scale, on a PostgreSQL and a Kafka of its own; `make test-faults` runs it
 * alone at full scale.
 */
export default defineConfig({
  test: {
    // Stopping a broker started for the run is a controlled shutdown: allow it to finish.
    teardownTimeout: 40_000,
    maxWorkers: 2,
    // The files that take minutes start first, so the short ones fill both workers at the end.
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        // Each worker imports the workspace's modules once for all its files rather than once per
        // file: a fresh clone's run spent 297 s importing, and this group took about 10 minutes
        // of it, 7 without. Every file still starts and stops what it uses in its own hooks,
        // under names of its own.
        test: { ...shared, isolate: false, name: "unit-and-integration", include: ["**/*.test.ts"], exclude: [...shared.exclude, ...MODULE_MOCKS, "tests/e2e/**", "tests/faults/**"], sequence: { groupOrder: 0 } },
      },
      {
        // vi.mock replaces a module for its file alone only when that file has modules of its own.
        test: { ...shared, name: "unit-and-integration-module-mocks", include: MODULE_MOCKS, sequence: { groupOrder: 0 } },
      },
      {
        test: { ...shared, name: "e2e", include: ["tests/e2e/**/*.test.ts", "tests/faults/**/*.faults.test.ts"], setupFiles: ["tests/e2e/support/failure-logs.ts"], sequence: { groupOrder: 1 } },
      },
    ],
  },
});
