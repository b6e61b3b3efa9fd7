import { defineConfig } from "vitest/config";

/**
 * One run for the whole workspace. The global setup provides a real PostgreSQL server and a real
 * Kafka broker (started when none is running) to every test file through `inject`.
 */
export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["**/node_modules/**", ".tools/**", ".dev/**"],
    globalSetup: ["tests/setup/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Stopping a broker started for the run is a controlled shutdown: allow it to finish.
    teardownTimeout: 40_000,
    // Two cores: integration files share one broker and one database server.
    maxWorkers: 2,
    env: { KAFKAJS_NO_PARTITIONER_WARNING: "1" },
  },
});
