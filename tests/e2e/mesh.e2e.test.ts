import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { decodeJwt } from "jose";
import { dropDatabase } from "@tawsil/db";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@tawsil/proto/grpc/health/v1/health_pb";
import { freePort, problemSchemaErrors } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ensureTopics } from "../../scripts/infra/kafka";
import { type Mesh, SERVICES, startMesh, TOPICS } from "../../scripts/mesh";
import { migrateAll } from "../../scripts/migrate-all";
import { seedDevMerchants } from "../../scripts/seed-dev";

/**
 * The walking skeleton as `make dev` runs it: seven processes on the real PostgreSQL and Kafka,
 * checked from outside, then stopped with nothing left behind.
 */
const adminUrl = inject("databaseAdminUrl");
const brokers = inject("kafkaBrokers");
const prefix = `tawsil_e2e_${randomUUID().slice(0, 8)}_`;
let mesh: Mesh;
const credentialsFile = path.join(os.tmpdir(), `${prefix}credentials.env`);
let credentials: Record<string, string>;
const logDir = path.join(os.tmpdir(), `${prefix}logs`);

const RIYADH_OLAYA = { latitude: 24.7136, longitude: 46.6753 };
const RIYADH_MALQA = { latitude: 24.774265, longitude: 46.738586 };
const JEDDAH_BALAD = { latitude: 21.485811, longitude: 39.192505 };
const RED_SEA = { latitude: 21.45, longitude: 38.95 };

async function tokenFor(clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${mesh.gatewayUrl}/oauth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials",
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

beforeAll(async () => {
  await ensureTopics([...brokers], TOPICS);
  const databases = await migrateAll(adminUrl, { dbPrefix: prefix });
  const servicePorts = await Promise.all(SERVICES.map(() => freePort()));
  mesh = await startMesh({
    databaseUrls: Object.fromEntries(SERVICES.map((s) => [s, databases[s].url])) as Record<(typeof SERVICES)[number], string>,
    kafkaBrokers: brokers,
    gatewayPort: await freePort(),
    servicePorts,
    logDir,
    env: { LOG_LEVEL: "warn" },
    serviceEnv: {
      merchant: { SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64") },
      shipment: { TRACKING_LINK_SECRET: randomBytes(32).toString("base64"), CURSOR_SECRET: randomBytes(32).toString("base64") },
    },
  });
  const merchantUrl = mesh.processes.find((p) => p.name === "merchant")!.url;
  await seedDevMerchants({ merchantUrl, gatewayBaseUrl: mesh.gatewayUrl, credentialsFile, log: () => {} });
  credentials = Object.fromEntries(
    readFileSync(credentialsFile, "utf8")
      .split("\n")
      .filter((line) => /^[A-Z0-9_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}, 180_000);

afterAll(async () => {
  rmSync(credentialsFile, { force: true });
  rmSync(logDir, { recursive: true, force: true });
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

  it("issues a token to the seeded client and serves its merchant's profile", async () => {
    const basic = Buffer.from(`${credentials.TAWSIL_CLIENT_ID}:${credentials.TAWSIL_CLIENT_SECRET}`).toString("base64");
    const tokenRes = await fetch(`${mesh.gatewayUrl}/oauth/token`, {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=client_credentials",
    });
    expect(tokenRes.status).toBe(200);
    const { access_token: token, scope } = (await tokenRes.json()) as { access_token: string; scope: string };
    expect(scope).toBe("shipments:read shipments:write webhooks:manage");
    const me = await fetch(`${mesh.gatewayUrl}/v2/external/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ status: "ACTIVE", code: expect.any(String), displayName: expect.any(String), legalName: expect.any(String) });
    expect(credentials).toMatchObject({
      TAWSIL_BASE_URL: mesh.gatewayUrl,
      TAWSIL_CLIENT2_ID: expect.any(String),
      TAWSIL_READONLY_CLIENT_ID: expect.any(String),
      TAWSIL_SAVED_LOCATION: expect.any(String),
    });
  });

  it("estimates a Riyadh delivery for the seeded merchant exactly as the pricing RPC prices it", async () => {
    const token = await tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
    const body = { pickup: RIYADH_OLAYA, delivery: RIYADH_MALQA, destinationCityCode: "RUH" };
    const res = await fetch(`${mesh.gatewayUrl}/v2/external/shipment-price-estimates`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const estimate = (await res.json()) as { distanceMetres: number; price: number; currency: string };
    expect(estimate).toEqual({ distanceMetres: expect.any(Number), price: expect.any(Number), currency: "SAR" });
    expect(estimate.distanceMetres).toBeGreaterThan(5000);
    expect(Math.round(estimate.price * 100)).toBe(estimate.price * 100);

    const pricing = createClient(PricingService, createConnectTransport({ baseUrl: mesh.processes.find((p) => p.name === "pricing")!.url, httpVersion: "2" }));
    const quote = await pricing.quoteDelivery({
      merchantId: String(decodeJwt(token).merchant_id),
      pickup: { latitudeMicro: 24_713_600, longitudeMicro: 46_675_300 },
      destination: { latitudeMicro: 24_774_265, longitudeMicro: 46_738_586 },
      expectedCityCode: "RUH",
      parcel: { totalWeightGrams: 1000n, longestSideMm: 0, requirements: [], cashOnDelivery: false },
      codAmount: "",
    });
    expect(estimate).toEqual({ distanceMetres: Number(quote.distanceMetres), price: Number(quote.price?.amount), currency: quote.price?.currency });
  });

  it("answers a delivery point in the sea with 422 OUTSIDE_COVERAGE", async () => {
    const token = await tokenFor(credentials.TAWSIL_READONLY_CLIENT_ID!, credentials.TAWSIL_READONLY_CLIENT_SECRET!);
    const res = await fetch(`${mesh.gatewayUrl}/v2/external/shipment-price-estimates`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ pickup: JEDDAH_BALAD, delivery: RED_SEA }),
    });
    expect(res.status).toBe(422);
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problemSchemaErrors(problem)).toEqual([]);
    expect(problem.code).toBe("OUTSIDE_COVERAGE");
  });

  it("answers a destination city code that is not the destination's city with 422 CITY_MISMATCH", async () => {
    const token = await tokenFor(credentials.TAWSIL_READONLY_CLIENT_ID!, credentials.TAWSIL_READONLY_CLIENT_SECRET!);
    const res = await fetch(`${mesh.gatewayUrl}/v2/external/shipment-price-estimates`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "accept-language": "ar" },
      body: JSON.stringify({ pickup: RIYADH_OLAYA, delivery: RIYADH_MALQA, destinationCityCode: "JED" }),
    });
    expect(res.status).toBe(422);
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problemSchemaErrors(problem)).toEqual([]);
    expect(problem).toMatchObject({ code: "CITY_MISMATCH", title: "المدينة غير مطابقة" });
  });

  it("never writes the margin or the carrier cost to any log", () => {
    const logs = readdirSync(logDir).map((file) => readFileSync(path.join(logDir, file), "utf8")).join("\n");
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toMatch(/margin|carrier_?cost/i);
  });

  it("stops every process on SIGTERM, leaving none behind", async () => {
    const pids = mesh.processes.map((p) => p.child.pid);
    await mesh.stop();
    for (const p of mesh.processes) expect({ name: p.name, exitCode: p.child.exitCode }).toEqual({ name: p.name, exitCode: 0 });
    for (const pid of pids) expect(() => process.kill(pid!, 0)).toThrow();
  });
});
