/**
 * Issue 31's soak at `make test`'s scale: 3 minutes of `make soak` (@tawsil/testing's soak, scripts/soak/main.ts its command) against a mesh
 * with two replicas of the gateway and of every service, on this file's lane. Its thresholds are
 * the soak's contract (packages/testing/src/soak/verdict.ts), not timing assertions of an ordinary test; `make
 * soak` runs the same for 30 minutes.
 */
import { startRedisServer, type RedisServer } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { renderSoakReport } from "../../packages/testing/src/soak/report";
import { runSoak } from "../../packages/testing/src/soak/run";
import { soakEnv, soakSettings } from "../../packages/testing/src/soak/settings";
import { laneBrokers } from "./support/lane";
import { startTestMesh, type TestMesh } from "./support/test-mesh";

const settings = soakSettings({ SOAK_MINUTES: process.env.SOAK_MINUTES ?? "3" });
let redis: RedisServer;
let testMesh: TestMesh;

beforeAll(async () => {
  redis = await startRedisServer();
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers: laneBrokers(),
    env: soakEnv(settings, redis.url),
    replicas: 2,
    // Fifteen processes starting at once on two cores, beside the other lane's mesh.
    readyTimeoutMs: 240_000,
  });
}, 300_000);

afterAll(async () => {
  await testMesh?.close();
  await redis?.stop();
});

describe("the soak", () => {
  it(
    `holds for ${settings.minutes} minutes: flat memory, bounded tables, no 5xx, every effect once, healthy webhooks fast beside failing ones`,
    async () => {
      const outcome = await runSoak(settings, { mesh: testMesh.mesh, databaseUrls: testMesh.databaseUrls, brokers: laneBrokers() }, (line) => console.log(`[soak] ${line}`));
      console.log(renderSoakReport(settings, outcome.figures, outcome.failures));
      expect(outcome.failures).toEqual([]);
    },
    (settings.minutes * 60 + settings.drainSeconds + 180) * 1000,
  );
});
