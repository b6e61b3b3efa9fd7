import { randomBytes, randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { dropDatabase } from "@tawsil/db";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@tawsil/proto/grpc/health/v1/health_pb";
import { freePort, problemSchemaErrors } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureTopics } from "../../scripts/infra/kafka";
import { type Mesh, SERVICES, startMesh, TOPICS } from "../../scripts/mesh";
import { migrateAll } from "../../scripts/migrate-all";

/**
 * The walking skeleton as `make dev` runs it: seven processes on the real PostgreSQL and Kafka,
 * checked from outside, then stopped with nothing left behind.
 */
const adminUrl = inject("databaseAdminUrl");
const brokers = inject("kafkaBrokers");
const prefix = `tawsil_e2e_${randomUUID().slice(0, 8)}_`;
let mesh: Mesh;

beforeAll(async () => {
  await ensureTopics([...brokers], TOPICS);
  const databases = await migrateAll(adminUrl, { dbPrefix: prefix });
  const servicePorts = await Promise.all(SERVICES.map(() => freePort()));
  mesh = await startMesh({
    databaseUrls: Object.fromEntries(SERVICES.map((s) => [s, databases[s].url])) as Record<(typeof SERVICES)[number], string>,
    kafkaBrokers: brokers,
    gatewayPort: await freePort(),
    servicePorts,
    logDir: path.join(os.tmpdir(), `${prefix}logs`),
    env: { LOG_LEVEL: "warn" },
    serviceEnv: { merchant: { SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64") } },
  });
}, 180_000);

afterAll(async () => {
  await mesh?.stop();
  await Promise.all(SERVICES.map((s) => dropDatabase(adminUrl, `${prefix}${s}`)));
});

describe("the mesh", () => {
  it("reports every service, PostgreSQL and Kafka ready through the gateway", async () => {
    const res = await fetch(`${mesh.gatewayUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: "ready",
      services: Object.fromEntries(SERVICES.map((s) => [s, "up"])),
      dependencies: { postgresql: "up", kafka: "up" },
    });
  });

  it("serves the gRPC health protocol on every service", async () => {
    for (const p of mesh.processes.filter((p) => p.name !== "gateway")) {
      const health = createClient(Health, createGrpcTransport({ baseUrl: p.url }));
      expect((await health.check({ service: "" })).status, p.name).toBe(Status.SERVING);
    }
  });

  it("answers an unknown path with a problem", async () => {
    const res = await fetch(`${mesh.gatewayUrl}/v2/external/unknown`);
    expect(res.status).toBe(404);
    expect(problemSchemaErrors(await res.json())).toEqual([]);
  });

  it("stops every process on SIGTERM, leaving none behind", async () => {
    const pids = mesh.processes.map((p) => p.child.pid);
    await mesh.stop();
    for (const p of mesh.processes) expect({ name: p.name, exitCode: p.child.exitCode }).toEqual({ name: p.name, exitCode: 0 });
    for (const pid of pids) expect(() => process.kill(pid!, 0)).toThrow();
  });
});
