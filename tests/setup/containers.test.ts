/**
 * The run's PostgreSQL and Kafka really are containers when the setup says so: the engine itself
 * (not our bookkeeping) lists them, running, labelled by testcontainers and with this run's id, and
 * the URL and brokers every test was handed point at their published ports.
 */
import { describe, expect, inject, it } from "vitest";
import { listContainers, RUN_LABEL } from "../../packages/testing/src/containers/engine-api";

const infra = inject("testInfra");
const adminUrl = inject("databaseAdminUrl");
const brokers = inject("kafkaBrokers");

describe("the test run's infrastructure", () => {
  it.runIf(process.env.CI === "true")("takes a container path in CI, never the native fallback", () => {
    expect(infra.kind, infra.reason).not.toBe("native");
  });

  it.skipIf(infra.containers === null)("is PostgreSQL and Kafka in running containers of this run, labelled by testcontainers", async () => {
    const run = infra.containers!;
    const ours = await listContainers(run.path.dockerHost, ["org.testcontainers=true", `${RUN_LABEL}=${run.runId}`]);
    const published = (image: string) =>
      ours.filter((c) => c.Image === image && c.State === "running").flatMap((c) => (c.Ports ?? []).map((p) => p.PublicPort));

    const postgresPort = Number(new URL(adminUrl).port);
    if (!process.env.DATABASE_ADMIN_URL) expect(published(run.images.postgres)).toContain(postgresPort);
    if (brokers.length > 0) expect(published(run.images.kafka)).toContain(Number(brokers[0]!.split(":")[1]));
    expect(ours.every((c) => c.Labels["org.testcontainers.session-id"])).toBe(true);
  });
});
