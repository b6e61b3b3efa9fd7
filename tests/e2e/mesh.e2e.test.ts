import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Code, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { DriverService } from "@tawsil/proto/tawsil/dispatch/v1/driver_service_pb";
import { PricingService } from "@tawsil/proto/tawsil/pricing/v1/pricing_service_pb";
import { fromBinary } from "@bufbuild/protobuf";
import { ShipmentChangedSchema } from "@tawsil/proto/tawsil/shipment/v1/events_pb";
import { ShipmentAdminService } from "@tawsil/proto/tawsil/shipment/v1/shipment_admin_service_pb";
import { ShipmentService } from "@tawsil/proto/tawsil/shipment/v1/shipment_service_pb";
import { ShipmentState } from "@tawsil/proto/tawsil/shipment/v1/shipment_pb";
import { decodeJwt } from "jose";
import { Kafka, logLevel } from "kafkajs";
import { Health, HealthCheckResponse_ServingStatus as Status } from "@tawsil/proto/grpc/health/v1/health_pb";
import { mintServiceToken, SERVICE_TOKEN_HEADER } from "@tawsil/rpc";
import { TawsilProblemError } from "@tawsil/sdk";
import { problemSchemaErrors } from "@tawsil/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { laneBrokers } from "./support/lane";
import type { Mesh } from "@tawsil/testing/mesh";
import { SERVICES as GATEWAY_PEERS } from "../../gateway/src/config";
import { readOpenApiDocument } from "../../gateway/src/openapi/document";
import { putFleetOnShift, query as dispatchQuery } from "../../services/dispatch/test/support";
import { createAdminClient, MerchantStatus } from "../../services/merchant/src/cli/admin-client";
import { startTestMesh, type TestMesh } from "./support/test-mesh";
import { SHIPMENT_EVENTS_TOPIC } from "@tawsil/topology";

/**
 * The walking skeleton as `make dev` runs it: seven processes on the real PostgreSQL and Kafka,
 * checked from outside, then stopped with nothing left behind.
 */
const brokers = laneBrokers();
let testMesh: TestMesh;
let mesh: Mesh;
let credentials: Record<string, string>;
let logDir: string;

const RIYADH_OLAYA = { latitude: 24.7136, longitude: 46.6753 };
const RIYADH_MALQA = { latitude: 24.774265, longitude: 46.738586 };
const JEDDAH_BALAD = { latitude: 21.485811, longitude: 39.192505 };
const RED_SEA = { latitude: 21.45, longitude: 38.95 };

const tokenFor = (clientId: string, clientSecret: string) => testMesh.tokenFor(clientId, clientSecret);
/** The seeded merchant as an SDK user (all scopes), its read-only client, and the other merchant. */
const merchant = () => testMesh.sdkFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
const readOnlyMerchant = () => testMesh.sdkFor(credentials.TAWSIL_READONLY_CLIENT_ID!, credentials.TAWSIL_READONLY_CLIENT_SECRET!);
const otherMerchant = () => testMesh.sdkFor(credentials.TAWSIL_CLIENT2_ID!, credentials.TAWSIL_CLIENT2_SECRET!);
/** Headers that make a direct call to a service come from `caller` (the mesh's own keys). */
async function as(caller: string, audience: string): Promise<{ headers: Record<string, string> }> {
  return { headers: { [SERVICE_TOKEN_HEADER]: await mintServiceToken(mesh.identityKeys, caller, audience) } };
}
/** The problem a call failed with, for the same assertions a raw answer gets. */
async function problemOf(call: Promise<unknown>): Promise<TawsilProblemError> {
  const error = await call.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(TawsilProblemError);
  return error as TawsilProblemError;
}

beforeAll(async () => {
  // No sandbox fleet here: shipments must stay cancellable; the fleet has its own lifecycle test.
  // Creates need a driver on shift (decisions.md section 2): Riyadh's are busy with other work, so
  // eligibility finds them and the dispatcher offers them nothing. Jeddah has none.
  testMesh = await startTestMesh({
    adminUrl: inject("databaseAdminUrl"),
    brokers,
    fleet: false,
    beforeStart: (databaseUrls) => putFleetOnShift(databaseUrls.dispatch, { cities: ["RUH"], busy: true }),
  });
  ({ mesh, credentials, logDir } = testMesh);
}, 180_000);

afterAll(async () => {
  await testMesh?.close();
});


/** Polls until `done`, failing if that takes more than 5 s after the change. */
async function within5s(done: () => Promise<boolean>): Promise<void> {
  const changedAt = Date.now();
  while (!(await done())) {
    if (Date.now() - changedAt > 5_000) throw new Error("the change was not in effect within 5 s");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("the mesh", () => {
  it("reports the gateway ready, holding its signing keys, and every service up as the gateway sees it", async () => {
    // The gateway's view of a service is its last health answer (asked every second).
    await expect
      .poll(async () => {
        const res = await fetch(`${mesh.gatewayUrl}/readyz`);
        return { status: res.status, body: await res.json() };
      }, { timeout: 10_000 })
      .toEqual({ status: 200, body: { status: "ready", checks: { signingKeys: "up" }, services: Object.fromEntries(GATEWAY_PEERS.map((s) => [s, "up"])) } });
  });

  it("serves the gRPC health protocol on every service", async () => {
    for (const p of mesh.processes.filter((p) => p.name !== "gateway")) {
      const health = createClient(Health, createGrpcTransport({ baseUrl: p.url }));
      expect((await health.check({ service: "" })).status, p.name).toBe(Status.SERVING);
    }
  });

  it("lets each service know its caller, refusing a call with no token or from a caller not allowed", async () => {
    const url = (name: string) => mesh.processes.find((p) => p.name === name)!.url;
    const shipments = createClient(ShipmentService, createGrpcTransport({ baseUrl: url("shipment") }));
    const drivers = createClient(DriverService, createConnectTransport({ baseUrl: url("dispatch"), httpVersion: "2" }));
    const shipmentId = randomUUID();
    const codeOf = (call: Promise<unknown>) => call.then(() => "ok", (e: { code?: Code }) => e.code);
    expect(await codeOf(shipments.reserveForOffer({ shipmentId, expectedVersion: 1n }))).toBe(Code.Unauthenticated);
    expect(await codeOf(shipments.reserveForOffer({ shipmentId, expectedVersion: 1n }, { headers: { [SERVICE_TOKEN_HEADER]: "not.a.token" } }))).toBe(Code.Unauthenticated);
    // The gateway may not reserve or move a shipment; dispatch may (this one does not exist).
    expect(await codeOf(shipments.reserveForOffer({ shipmentId, expectedVersion: 1n }, await as("gateway", "shipment")))).toBe(Code.PermissionDenied);
    expect(await codeOf(shipments.applyDispatchStep({ shipmentId, expectedVersion: 1n }, await as("gateway", "shipment")))).toBe(Code.PermissionDenied);
    expect(await codeOf(shipments.reserveForOffer({ shipmentId, expectedVersion: 1n }, await as("dispatch", "shipment")))).toBe(Code.NotFound);
    // A token for another service is no token here.
    expect(await codeOf(shipments.reserveForOffer({ shipmentId, expectedVersion: 1n }, await as("dispatch", "pricing")))).toBe(Code.Unauthenticated);
    // The driver API answers the gateway only (its /v2/driver routes carry the driver's own token).
    for (const caller of ["pricing", "shipment", "tracking", "webhook", "merchant"]) {
      expect(await codeOf(drivers.listOffers({ driverId: randomUUID() }, await as(caller, "dispatch"))), caller).toBe(Code.PermissionDenied);
    }
    expect(await codeOf(drivers.listOffers({ driverId: randomUUID() }, await as("gateway", "dispatch")))).not.toBe(Code.PermissionDenied);
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
    expect(token).toEqual(expect.any(String));
    expect(await merchant().me()).toMatchObject({ status: "ACTIVE", code: expect.any(String), displayName: expect.any(String), legalName: expect.any(String) });
    expect(credentials).toMatchObject({
      TAWSIL_BASE_URL: mesh.gatewayUrl,
      TAWSIL_CLIENT2_ID: expect.any(String),
      TAWSIL_READONLY_CLIENT_ID: expect.any(String),
      TAWSIL_SAVED_LOCATION: expect.any(String),
    });
  });

  it("estimates a Riyadh delivery for the seeded merchant exactly as the pricing RPC prices it", async () => {
    const token = await tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
    const estimate = await merchant().estimates.create({ pickup: RIYADH_OLAYA, delivery: RIYADH_MALQA, destinationCityCode: "RUH" });
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
    }, await as("gateway", "pricing"));
    expect(estimate).toEqual({ distanceMetres: Number(quote.distanceMetres), price: Number(quote.price?.amount), currency: quote.price?.currency });
  });

  it("answers a delivery point in the sea with 422 OUTSIDE_COVERAGE", async () => {
    const error = await problemOf(readOnlyMerchant().estimates.create({ pickup: JEDDAH_BALAD, delivery: RED_SEA }));
    expect(error.status).toBe(422);
    expect(problemSchemaErrors(error.problem)).toEqual([]);
    expect(error.code).toBe("OUTSIDE_COVERAGE");
  });

  it("answers a destination city code that is not the destination's city with 422 CITY_MISMATCH", async () => {
    const error = await problemOf(readOnlyMerchant().estimates.create({ pickup: RIYADH_OLAYA, delivery: RIYADH_MALQA, destinationCityCode: "JED" }, { acceptLanguage: "ar" }));
    expect(error.status).toBe(422);
    expect(problemSchemaErrors(error.problem)).toEqual([]);
    expect(error.problem).toMatchObject({ code: "CITY_MISMATCH", title: "المدينة غير مطابقة" });
  });

  it("never writes the margin or the carrier cost to any log", () => {
    const logs = readdirSync(logDir).map((file) => readFileSync(path.join(logDir, file), "utf8")).join("\n");
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toMatch(/margin|carrier_?cost/i);
  });

  describe("shipments through the gateway", () => {
    const created: { id: string; reference: string }[] = [];
    const api = async (method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${mesh.gatewayUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const reference = `E2E-${randomUUID().slice(0, 8)}`;

    it("creates in shape A with a saved pickup, then replays the same request as 200 with the same body", async () => {
      const body = {
        reference: `${reference}-A`,
        pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION! },
        destination: RIYADH_MALQA,
        recipient: { name: "Noura Al-Saud", mobile: "0512345678" },
        parcel: { description: "Abaya", pieces: 2, weightKg: 1.5 },
        codAmount: 120.5,
      };
      // No Idempotency-Key: the reference is the key, so the second create is a replay (200).
      const first = await merchant().shipments.create(body, { idempotencyKey: false });
      expect(first.replayed).toBe(false);
      const shipment = first.shipment;
      expect(shipment).toMatchObject({ reference: `${reference}-A`, status: "CREATED", codAmount: 120.5, version: expect.any(Number) });
      expect(shipment.trackingUrl).toMatch(/\/t\/[A-Za-z0-9_-]{43}$/);
      expect(first.etag).toBe(`"${shipment.version}"`);
      expect(first.location).toBe(`/v2/external/shipments/${shipment.id}`);

      const replay = await merchant().shipments.create(body, { idempotencyKey: false });
      expect(replay.replayed).toBe(true);
      expect(replay.shipment).toEqual(shipment);
      expect(replay.etag).toBe(first.etag);
      created.push({ id: String(shipment.id), reference: `${reference}-A` });
    });

    it("creates in shape B with a branch and reads it back with ETag and If-None-Match", async () => {
      const client = merchant();
      const { shipment, replayed } = await client.shipments.create({
        externalReference: `${reference}-B`,
        pickupLocationCode: credentials.TAWSIL_SAVED_LOCATION!,
        branchCode: "RUH-MAIN",
        recipient: { name: "Fahad", phone: "+966512345679" },
        destination: { ...RIYADH_MALQA, cityCode: "RUH" },
        items: [{ description: "Shoes", quantity: 2, weightKilograms: 0.75, lengthCentimetres: 30, widthCentimetres: 20, heightCentimetres: 12 }],
        requirements: ["FRAGILE"],
      }, { idempotencyKey: `${reference}-key-for-b` });
      expect(replayed).toBe(false);
      expect(shipment).toMatchObject({
        externalReference: `${reference}-B`,
        maskedRecipientPhone: "*********5679",
        totalWeightKilograms: 1.5,
        currency: "SAR",
        paymentMethod: "PREPAID",
        destination: { cityCode: "RUH", latitude: RIYADH_MALQA.latitude, longitude: RIYADH_MALQA.longitude },
        pickup: { cityCode: "RUH" },
        requirements: ["FRAGILE"],
        timelineMedia: [],
      });
      expect(shipment.shipmentNumber).toMatch(/^TWS-\d{10}$/);
      const read = await client.shipments.get(shipment.shipmentId);
      expect(read.notModified).toBe(false);
      const etag = read.etag;
      expect(etag).toMatch(/^"\d+"$/);
      expect(read).toMatchObject({ shipment: { shipmentId: shipment.shipmentId } });
      expect(await client.shipments.get(shipment.shipmentId, { ifNoneMatch: etag })).toEqual({ notModified: true, etag });
      created.push({ id: String(shipment.shipmentId), reference: `${reference}-B` });
    });

    it("names every violation by the merchant's own field, in the request's shape, whoever judged it", async () => {
      const token = await tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
      const shapeA = {
        reference: `${reference}-bad-A`,
        pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION },
        destination: RIYADH_MALQA,
        recipient: { name: "Noura", mobile: "0512345678" },
      };
      const shapeB = {
        externalReference: `${reference}-bad-B`,
        pickupLocationCode: credentials.TAWSIL_SAVED_LOCATION,
        recipient: { name: "Fahad", phone: "0512345679" },
        destination: RIYADH_MALQA,
        items: [{ description: "Shoes", quantity: 1, weightKilograms: 1 }],
      };
      const inEightDays = new Date(Date.now() + 8 * 24 * 3600_000).toISOString();
      const inOneHour = new Date(Date.now() + 3600_000).toISOString();
      const cases: [string, unknown, string[]][] = [
        ["A: a unit weight over 1000 kg", { ...shapeA, parcel: { pieces: 1, weightKg: 5000 } }, ["parcel.weightKg OUT_OF_RANGE"]],
        ["A: a weight with 4 decimals", { ...shapeA, parcel: { weightKg: 1.2345 } }, ["parcel.weightKg NOT_MULTIPLE_OF"]],
        ["B: an item weight with 4 decimals", { ...shapeB, items: [{ description: "Shoes", quantity: 1, weightKilograms: 1.2345 }] }, ["items[0].weightKilograms NOT_MULTIPLE_OF"]],
        ["B: a dimension with 4 decimals", { ...shapeB, items: [{ description: "Shoes", quantity: 1, weightKilograms: 1, heightCentimetres: 10.0001 }] }, ["items[0].heightCentimetres NOT_MULTIPLE_OF"]],
        ["A: an unknown saved location", { ...shapeA, pickup: { savedLocationCode: "NO-SUCH-PLACE" } }, ["pickup.savedLocationCode UNKNOWN_REFERENCE"]],
        ["B: an unknown saved location", { ...shapeB, pickupLocationCode: "NO-SUCH-PLACE" }, ["pickupLocationCode UNKNOWN_REFERENCE"]],
        ["A: a window ending too far ahead", { ...shapeA, pickupWindow: { start: inOneHour, end: inEightDays } }, ["pickupWindow.end OUT_OF_RANGE"]],
        ["B: a window ending too far ahead", { ...shapeB, pickupWindowStart: inOneHour, pickupWindowEnd: inEightDays }, ["pickupWindowEnd OUT_OF_RANGE"]],
      ];
      for (const [name, body, expected] of cases) {
        const res = await api("POST", "/v2/external/shipments", token, body, { "accept-language": "ar" });
        expect({ name, status: res.status }).toEqual({ name, status: 422 });
        expect(res.headers.get("content-language")).toBe("ar");
        const problem = (await res.json()) as { code: string; violations: { field: string; code: string; message: string }[] };
        expect({ name, errors: problemSchemaErrors(problem) }).toEqual({ name, errors: [] });
        expect({ name, violations: problem.violations.map((v) => `${v.field} ${v.code}`) }).toEqual({ name, violations: expected });
        expect(problem.violations.every((v) => !/undefined/.test(v.message))).toBe(true);
      }
    });

    it("accepts a shape A codAmount of 0 as prepaid: one money rule, >= 0, for both shapes", async () => {
      const client = merchant();
      const { shipment, replayed } = await client.shipments.create({
        reference: `${reference}-A0`,
        pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION! },
        destination: RIYADH_MALQA,
        recipient: { name: "Noura", mobile: "0512345678" },
        codAmount: 0,
      });
      expect(replayed).toBe(false);
      expect(await client.shipments.get(shipment.id)).toMatchObject({ shipment: { codAmount: 0, paymentMethod: "PREPAID" } });
    });

    it("lists the merchant's shipments and keeps them from other merchants", async () => {
      const page = await readOnlyMerchant().shipments.page({ externalReference: `${reference}-B` });
      expect(page.data.map((s) => s.shipmentId)).toEqual([created[1]!.id]);
      expect(page.page).toEqual({ limit: 25, nextCursor: null, hasMore: false });
      expect(page.links.self).toBe(`/v2/external/shipments?externalReference=${reference}-B`);
      const iterated: string[] = [];
      for await (const s of readOnlyMerchant().shipments.list({ externalReference: `${reference}-B` })) iterated.push(s.shipmentId);
      expect(iterated).toEqual([created[1]!.id]);
      const foreign = await problemOf(otherMerchant().shipments.get(created[0]!.id));
      expect(foreign.status).toBe(403);
      expect(foreign.code).toBe("ACCESS_DENIED");
      expect((await problemOf(otherMerchant().shipments.cancel(created[0]!.id, { reason: "NOT_MINE" }, { idempotencyKey: false }))).status).toBe(403);
    });

    it("cancels in shape A, replays the cancel, and refuses another cancel of the final state", async () => {
      const client = merchant();
      const id = created[0]!.id;
      // No Idempotency-Key: the server derives it from the shipment id, so the second is a replay.
      const cancel = await client.shipments.cancel(id, { reason: "CUSTOMER_REQUEST" }, { idempotencyKey: false });
      const body = cancel.shipment;
      expect(body).toMatchObject({ id, status: "CANCELLED" });
      const again = await client.shipments.cancel(id, { reason: "CUSTOMER_REQUEST" }, { idempotencyKey: false });
      expect(again.shipment).toEqual(body);
      const different = await problemOf(client.shipments.cancel(id, { reasonCode: "CUSTOMER_REQUEST" }, { idempotencyKey: `${reference}-other-cancel` }));
      expect(different.status).toBe(409);
      expect(different.code).toBe("SHIPMENT_NOT_CANCELLABLE");
    });

    it("binds a cancel's Idempotency-Key to the shipment in the path: the same key and body on another shipment is 422, and changes nothing", async () => {
      const client = merchant();
      const make = async (suffix: string) =>
        (
          await client.shipments.create({
            reference: `${reference}-${suffix}`,
            pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION! },
            destination: RIYADH_MALQA,
            recipient: { name: "Noura", mobile: "0512345678" },
          })
        ).shipment;
      const [first, second] = [await make("KEY-1"), await make("KEY-2")];
      const key = `${reference}-one-cancel-key`;
      expect((await client.shipments.cancel(String(first.id), { reason: "CUSTOMER_REQUEST" }, { idempotencyKey: key })).shipment).toMatchObject({ status: "CANCELLED" });
      const reused = await problemOf(client.shipments.cancel(String(second.id), { reason: "CUSTOMER_REQUEST" }, { idempotencyKey: key }));
      expect([reused.status, reused.code]).toEqual([422, "IDEMPOTENCY_KEY_REUSED"]);
      expect(await client.shipments.get(String(second.id))).toMatchObject({ shipment: { state: expect.not.stringMatching(/^CANCELLED$/), version: second.version } });
      // The same key still replays the first shipment's cancel.
      expect((await client.shipments.cancel(String(first.id), { reason: "CUSTOMER_REQUEST" }, { idempotencyKey: key })).shipment).toMatchObject({ id: first.id, status: "CANCELLED" });
    });

    it("answers 50 concurrent identical creates with one shipment and byte-identical bodies", async () => {
      const token = await tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
      const body = {
        reference: `${reference}-C`,
        pickup: { latitude: RIYADH_OLAYA.latitude, longitude: RIYADH_OLAYA.longitude },
        destination: RIYADH_MALQA,
        recipient: { name: "Sara", mobile: "512345670" },
      };
      const responses = await Promise.all(Array.from({ length: 50 }, () => api("POST", "/v2/external/shipments", token, body)));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(49);
      const bodies = await Promise.all(responses.map((r) => r.text()));
      expect(new Set(bodies).size).toBe(1);
      expect(new Set(responses.map((r) => r.headers.get("etag"))).size).toBe(1);
      const list = (await (await api("GET", `/v2/external/shipments?externalReference=${reference}-C`, token)).json()) as { data: unknown[] };
      expect(list.data).toHaveLength(1);
    });

    it("refuses a cursor used with another filter, by another merchant, or edited: 400 INVALID_CURSOR", async () => {
      const token = await tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
      const first = (await (await api("GET", "/v2/external/shipments?limit=1", token)).json()) as { page: { nextCursor: string; hasMore: boolean } };
      expect(first.page.hasMore).toBe(true);
      const cursor = first.page.nextCursor;
      expect((await api("GET", `/v2/external/shipments?limit=1&cursor=${cursor}`, token)).status).toBe(200);
      // A character in the middle: every one of its bits is data (the last may be padding).
      const edited = `${cursor.slice(0, 10)}${cursor[10] === "A" ? "B" : "A"}${cursor.slice(11)}`;
      const other = await tokenFor(credentials.TAWSIL_CLIENT2_ID!, credentials.TAWSIL_CLIENT2_SECRET!);
      for (const [query, who] of [
        [`limit=1&state=CANCELLED&cursor=${cursor}`, token],
        [`limit=1&cursor=${edited}`, token],
        [`limit=1&cursor=${cursor}`, other],
      ] as const) {
        const res = await api("GET", `/v2/external/shipments?${query}`, who);
        expect({ query, status: res.status }).toEqual({ query, status: 400 });
        const problem = (await res.json()) as Record<string, unknown>;
        expect(problemSchemaErrors(problem)).toEqual([]);
        expect(problem.code).toBe("INVALID_CURSOR");
      }
    });

    it("publishes each state change of each shipment exactly once on Kafka, in version order", async () => {
      const kafka = new Kafka({ clientId: "e2e-reader", brokers: [...brokers], logLevel: logLevel.NOTHING });
      const consumer = kafka.consumer({ groupId: `e2e-${randomUUID()}` });
      const seen = new Map<string, { version: number; state: ShipmentState }[]>(created.map((c) => [c.id, []]));
      await consumer.connect();
      await consumer.subscribe({ topics: [SHIPMENT_EVENTS_TOPIC], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const { shipment } = fromBinary(ShipmentChangedSchema, message.value ?? new Uint8Array());
          seen.get(shipment?.shipmentId ?? "")?.push({ version: Number(shipment?.version), state: shipment?.state ?? ShipmentState.UNSPECIFIED });
        },
      });
      // Shipment A: created (approved by the automatic checks in the same change), then cancelled
      // (dispatch may have marked it unresolved first: this mesh has no free drivers). Shipment B:
      // created and approved, perhaps unresolved since.
      const cancelled = () => seen.get(created[0]!.id)!.some((e) => e.state === ShipmentState.CANCELLED);
      const deadline = Date.now() + 30_000;
      while ((!cancelled() || seen.get(created[1]!.id)!.length < 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      await new Promise((r) => setTimeout(r, 1000)); // a duplicate would arrive right behind
      await consumer.disconnect();
      for (const [id, events] of seen) {
        // Once each and in order: versions 1, 2, 3, ... without gaps or repeats.
        expect({ id, versions: events.map((e) => e.version) }).toEqual({ id, versions: events.map((_, i) => i + 1) });
      }
      expect(seen.get(created[0]!.id)!.filter((e) => e.state === ShipmentState.CANCELLED)).toHaveLength(1);
      // decisions.md section 5: a create is one change, so one event, version 1, already READY_FOR_DISPATCH.
      expect(seen.get(created[1]!.id)![0]).toEqual({ version: 1, state: ShipmentState.READY_FOR_DISPATCH });
    });
  });

  describe("what a merchant pastes from the reference page (issue 28)", () => {
    type Json = Record<string, unknown>;
    interface RequestExample { operationId: string; method: string; path: string; mediaType: string; name: string; value: unknown; success: number }
    const document = readOpenApiDocument() as Json;
    const METHODS = ["get", "put", "post", "patch", "delete"];
    /**
     * The webhook examples name the merchant's own receiver (merchant.example.sa), which no test
     * can be; webhook.e2e registers and changes a receiver of its own. Every other example runs.
     */
    const NOT_RUN = new Set(["registerWebhook", "updateWebhook"]);

    /** Every request body example of the document (`example` or each of `examples`), $refs followed. */
    function requestExamples(): RequestExample[] {
      const resolve = (node: Json): Json =>
        typeof node.$ref === "string" ? resolve(node.$ref.slice(2).split("/").reduce<Json>((at, part) => at[part] as Json, document)) : node;
      const found: RequestExample[] = [];
      for (const [path, item] of Object.entries(document.paths as Json)) {
        for (const method of METHODS) {
          const operation = (item as Json)[method] as Json | undefined;
          const content = ((operation?.requestBody as Json | undefined)?.content ?? {}) as Json;
          for (const [mediaType, media] of Object.entries(content) as [string, Json][]) {
            // The status the document promises a first request: 201 where it documents one (a create
            // answers 200 only to a replay), else its success status.
            const successes = Object.keys((operation!.responses ?? {}) as Json).filter((code) => /^2\d\d$/.test(code)).map(Number);
            const success = successes.includes(201) ? 201 : Math.min(...successes);
            const base = { operationId: String(operation!.operationId), method: method.toUpperCase(), path, mediaType, success };
            if (media.example !== undefined) found.push({ ...base, name: "example", value: media.example });
            for (const [name, example] of Object.entries((media.examples ?? {}) as Json)) found.push({ ...base, name, value: resolve(example as Json).value });
          }
        }
      }
      return found;
    }

    it("answers every request example of the OpenAPI document with success, sent as written by the seeded merchant", async () => {
      const token = await tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
      const basic = `Basic ${Buffer.from(`${credentials.TAWSIL_CLIENT_ID}:${credentials.TAWSIL_CLIENT_SECRET}`).toString("base64")}`;
      const examples = requestExamples();
      expect(examples.map((e) => `${e.operationId} ${e.name}`)).toEqual(
        expect.arrayContaining(["issueAccessToken basicAuth", "estimateShipmentPrice example", "createShipment shapeA", "createShipment shapeB", "cancelShipment shapeA", "cancelShipment shapeB"]),
      );
      /** The shipment each create example made, by example name: the cancel example of the same shape cancels it. */
      const createdBy = new Map<string, string>();
      const ran: string[] = [];
      for (const example of examples.filter((e) => !NOT_RUN.has(e.operationId))) {
        const label = `${example.operationId} ${example.name}`;
        let path = example.path;
        if (example.operationId === "cancelShipment") path = path.replace("{shipmentId}", createdBy.get(example.name) ?? "no-shipment-created-by-that-example");
        expect({ label, path }).toEqual({ label, path: expect.not.stringContaining("{") });
        const form = example.mediaType === "application/x-www-form-urlencoded";
        const res = await fetch(`${mesh.gatewayUrl}${path}`, {
          method: example.method,
          headers: { authorization: form ? basic : `Bearer ${token}`, "content-type": example.mediaType },
          body: form ? new URLSearchParams(example.value as Record<string, string>).toString() : JSON.stringify(example.value),
        });
        const body = (await res.json()) as Json;
        expect({ label, status: res.status, body: res.ok ? "ok" : body }).toEqual({ label, status: example.success, body: "ok" });
        if (example.operationId === "createShipment") createdBy.set(example.name, String(body.id ?? body.shipmentId));
        ran.push(label);
      }
      expect(ran).toHaveLength(examples.length - examples.filter((e) => NOT_RUN.has(e.operationId)).length);
    });

    it("names in the SDK's README the saved location the sandbox seed creates", () => {
      const readme = readFileSync(new URL("../../packages/sdk/README.md", import.meta.url), "utf8");
      const codes = [...readme.matchAll(/(?:savedLocationCode|pickupLocationCode)["']?\s*:\s*["']([^"']+)["']/g)].map((m) => m[1]);
      expect(codes.length).toBeGreaterThan(0);
      expect(new Set(codes)).toEqual(new Set([credentials.TAWSIL_SAVED_LOCATION]));
    });

    it("gives shape B the customer's tracking link in the create, read, list and cancel answers", async () => {
      const token = await tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
      const call = (method: string, path: string, body?: unknown) =>
        fetch(`${mesh.gatewayUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const externalReference = `E2E-TRACK-${randomUUID().slice(0, 8)}`;
      const create = await call("POST", "/v2/external/shipments", {
        externalReference,
        pickupLocationCode: credentials.TAWSIL_SAVED_LOCATION,
        recipient: { name: "Fahad", phone: "+966512345678" },
        destination: RIYADH_MALQA,
        items: [{ description: "Shoes", quantity: 1, weightKilograms: 1 }],
      });
      expect(create.status).toBe(201);
      const created = (await create.json()) as { shipmentId: string; trackingUrl?: string };
      expect(created.trackingUrl).toMatch(/^http:\/\/localhost:\d+\/t\/[A-Za-z0-9_-]{43}$/);
      const read = (await (await call("GET", `/v2/external/shipments/${created.shipmentId}`)).json()) as { trackingUrl?: string };
      const list = (await (await call("GET", `/v2/external/shipments?externalReference=${externalReference}`)).json()) as { data: { trackingUrl?: string }[] };
      const cancelled = (await (await call("POST", `/v2/external/shipments/${created.shipmentId}/cancel`, { reasonCode: "CUSTOMER_REQUEST" })).json()) as { state: string; trackingUrl?: string };
      expect(cancelled.state).toBe("CANCELLED");
      expect([read.trackingUrl, list.data[0]?.trackingUrl, cancelled.trackingUrl]).toEqual([created.trackingUrl, created.trackingUrl, created.trackingUrl]);
      // The link opens the customer's page.
      const code = created.trackingUrl!.slice(created.trackingUrl!.lastIndexOf("/") + 1);
      expect((await fetch(`${mesh.gatewayUrl}/t/${code}`)).status).toBe(200);
    });

    it("speaks of the reference, not of an Idempotency-Key, when a create without a key reuses a reference with another body", async () => {
      const token = await tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
      const create = (body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${mesh.gatewayUrl}/v2/external/shipments`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
          body: JSON.stringify(body),
        });
      const body = {
        reference: `E2E-REUSE-${randomUUID().slice(0, 8)}`,
        pickup: { savedLocationCode: credentials.TAWSIL_SAVED_LOCATION },
        destination: RIYADH_MALQA,
        recipient: { name: "Noura", mobile: "0512345678" },
      };
      expect((await create(body)).status).toBe(201);
      const changed = { ...body, recipient: { name: "Sara", mobile: "0512345678" } };
      for (const [language, reference, key] of [["en", "reference", "Idempotency-Key"], ["ar", "المرجع", "Idempotency-Key"]] as const) {
        const res = await create(changed, { "accept-language": language });
        expect(res.status).toBe(422);
        const problem = (await res.json()) as { code: string; detail: string };
        expect(problemSchemaErrors(problem)).toEqual([]);
        expect(problem.code).toBe("IDEMPOTENCY_KEY_REUSED");
        expect({ language, detail: problem.detail }).toEqual({ language, detail: expect.stringContaining(reference) });
        expect({ language, detail: problem.detail }).toEqual({ language, detail: expect.not.stringContaining(key) });
        expect(problem.detail).not.toMatch(/idempotency|عدم التكرار/i);
      }
      // With a key, the answer still speaks of the key.
      const key = `E2E-KEY-${randomUUID()}`;
      expect((await create({ ...body, reference: `${body.reference}-K` }, { "idempotency-key": key })).status).toBe(201);
      const keyed = (await (await create({ ...changed, reference: `${body.reference}-K` }, { "idempotency-key": key })).json()) as { code: string; detail: string };
      expect(keyed.code).toBe("IDEMPOTENCY_KEY_REUSED");
      expect(keyed.detail).toContain("Idempotency-Key");
    });
  });

  describe("merchant changes reach every cache", () => {
    // A merchant of its own, so that suspending it disturbs no other test.
    const code = `CACHE-${randomUUID().slice(0, 6).toUpperCase()}`;
    const terms = (baseFee: string) => ({ baseFee, includedKm: "10", perKmFee: "1.50", includedWeightKg: "5", perKgFee: "2.00", codFeePercent: "1.5", codFeeMinimum: "5.00", maxCodAmount: "5000.00", requirementSurcharges: [] });
    const admin = () => createAdminClient(mesh.processes.find((p) => p.name === "merchant")!.adminUrl!);
    let token: string;
    const post = (path: string, body: unknown) =>
      fetch(`${mesh.gatewayUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    const estimate = async () => {
      const res = await post("/v2/external/shipment-price-estimates", { pickup: RIYADH_OLAYA, delivery: RIYADH_MALQA });
      expect(res.status).toBe(200);
      return ((await res.json()) as { price: number }).price;
    };
    const create = () =>
      post("/v2/external/shipments", { reference: `CACHE-${randomUUID()}`, pickup: RIYADH_OLAYA, destination: RIYADH_MALQA, recipient: { name: "Sara", mobile: "0512345678" } });

    beforeAll(async () => {
      const client = admin();
      await client.createMerchant({ code, displayName: "Cache Test Store", legalName: "Cache Test Trading" });
      await client.addRateCard({ merchantCode: code, terms: terms("15.00"), expectedVersion: 1 });
      await client.setMerchantStatus({ merchantCode: code, status: MerchantStatus.ACTIVE });
      const { client: oauth, clientSecret } = await client.createClient({ merchantCode: code, name: "cache test", scopes: ["shipments:read", "shipments:write"] });
      token = await tokenFor(oauth!.clientId, clientSecret);
    });

    it("prices with a new rate card within 5 s of its addition, though pricing had the old one cached", async () => {
      const before = await estimate();
      expect(await estimate()).toBe(before); // cached now
      await admin().addRateCard({ merchantCode: code, terms: terms("25.00"), expectedVersion: 2 });
      await within5s(async () => (await estimate()) > before);
    });

    it("refuses a suspended merchant's creates within 5 s, though shipment had it cached as ACTIVE", async () => {
      expect((await create()).status).toBe(201);
      await admin().setMerchantStatus({ merchantCode: code, status: MerchantStatus.SUSPENDED });
      await within5s(async () => {
        const res = await create();
        if (res.status === 201) return false;
        expect(res.status).toBe(403);
        expect(await res.json()).toMatchObject({ code: "MERCHANT_NOT_ACTIVE" });
        return true;
      });
    });
  });

  describe("eligibility needs a driver on shift", () => {
    const JEDDAH_HAMRA = { latitude: 21.514, longitude: 39.168 };
    let token: string;
    const post = (path: string, body: unknown) =>
      fetch(`${mesh.gatewayUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    const estimate = () => post("/v2/external/shipment-price-estimates", { pickup: JEDDAH_BALAD, delivery: JEDDAH_HAMRA });
    const create = (reference: string) => post("/v2/external/shipments", { reference, pickup: JEDDAH_BALAD, destination: JEDDAH_HAMRA, recipient: { name: "Huda", mobile: "0512345678" } });
    async function expectNoEligibleService(res: Response): Promise<void> {
      expect(res.status).toBe(422);
      const problem = (await res.json()) as Record<string, unknown>;
      expect(problemSchemaErrors(problem)).toEqual([]);
      expect(problem.code).toBe("NO_ELIGIBLE_SERVICE");
    }

    beforeAll(async () => {
      token = await tokenFor(credentials.TAWSIL_CLIENT_ID!, credentials.TAWSIL_CLIENT_SECRET!);
    });

    it("answers estimate and create in a city with no driver on shift with 422 NO_ELIGIBLE_SERVICE, and serves both once one goes on shift", async () => {
      const reference = `JED-${randomUUID()}`;
      await expectNoEligibleService(await estimate());
      await expectNoEligibleService(await create(reference));
      // A Jeddah bike driver, off shift: drivers are provisioned by fleet management, which has no API.
      const driverId = randomUUID();
      await dispatchQuery(
        testMesh.databaseUrls.dispatch,
        `INSERT INTO driver (id, carrier_service_id, city_code, name, updated_at)
         SELECT $1::uuid, s.id, 'JED', 'E2E driver', now() FROM carrier_service s JOIN carrier c ON c.id = s.carrier_id
          WHERE c.active AND s.active AND s.service_level = 'BIKE' AND 'JED' = ANY(s.cities) LIMIT 1`,
        driverId,
      );
      await expectNoEligibleService(await estimate());

      // On shift through the drivers' API: dispatch's memory and pricing's follow, no restart.
      const drivers = createClient(DriverService, createConnectTransport({ baseUrl: mesh.processes.find((p) => p.name === "dispatch")!.url, httpVersion: "2" }));
      await drivers.setAvailability({ driverId, available: true }, await as("gateway", "dispatch"));
      // Pricing learns it from dispatch's city staffing on Kafka (no call to dispatch per quote):
      // refused until then, served within 5 s.
      await within5s(async () => {
        const res = await estimate();
        if (res.status === 200) return true;
        await expectNoEligibleService(res);
        return false;
      });
      // The refusal was not stored: the same reference (its default idempotency key) now creates.
      expect((await create(reference)).status).toBe(201);
    });
  });

  describe("operators decide held-back shipments", () => {
    // A DRAFT merchant of its own: the sandbox takes its creates but holds them in PENDING_APPROVAL.
    const code = `DRAFT-${randomUUID().slice(0, 6).toUpperCase()}`;
    let token: string;
    const processUrl = (name: string) => mesh.processes.find((p) => p.name === name)!.url;
    /** Operators' RPCs answer on each service's admin listener only. */
    const adminUrl = (name: string) => mesh.processes.find((p) => p.name === name)!.adminUrl!;
    const transport = (name: string) => createConnectTransport({ baseUrl: processUrl(name), httpVersion: "2" });
    const operator = () => createClient(ShipmentAdminService, createConnectTransport({ baseUrl: adminUrl("shipment"), httpVersion: "2" }));
    const headers = () => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

    async function create(): Promise<string> {
      const body = { reference: `HELD-${randomUUID()}`, pickup: RIYADH_OLAYA, destination: RIYADH_MALQA, recipient: { name: "Sara", mobile: "0512345678" } };
      const res = await fetch(`${mesh.gatewayUrl}/v2/external/shipments`, { method: "POST", headers: headers(), body: JSON.stringify(body) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    }

    async function read(id: string): Promise<{ etag: string | null; body: { state: string; version: number; approvedAt: string | null } }> {
      const res = await fetch(`${mesh.gatewayUrl}/v2/external/shipments/${id}`, { headers: headers() });
      expect(res.status).toBe(200);
      return { etag: res.headers.get("etag"), body: (await res.json()) as { state: string; version: number; approvedAt: string | null } };
    }

    /** The shipment's ShipmentChanged events on Kafka, once `until` holds for them (or 30 s have passed). */
    async function kafkaEvents(id: string, until: (events: { state: ShipmentState; version: number; reasonCode: string }[]) => boolean) {
      const consumer = new Kafka({ clientId: "e2e-approval", brokers: [...brokers], logLevel: logLevel.NOTHING }).consumer({ groupId: `e2e-${randomUUID()}` });
      const events: { state: ShipmentState; version: number; reasonCode: string }[] = [];
      await consumer.connect();
      await consumer.subscribe({ topics: [SHIPMENT_EVENTS_TOPIC], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const { shipment } = fromBinary(ShipmentChangedSchema, message.value ?? new Uint8Array());
          if (shipment?.shipmentId === id) events.push({ state: shipment.state, version: Number(shipment.version), reasonCode: shipment.reasonCode });
        },
      });
      const deadline = Date.now() + 30_000;
      while (!until(events) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      await consumer.disconnect();
      return events;
    }

    beforeAll(async () => {
      const admin = createAdminClient(adminUrl("merchant"));
      await admin.createMerchant({ code, displayName: "Draft Store", legalName: "Draft Trading" });
      await admin.addRateCard({
        merchantCode: code,
        terms: { baseFee: "15.00", includedKm: "10", perKmFee: "1.50", includedWeightKg: "5", perKgFee: "2.00", codFeePercent: "1.5", codFeeMinimum: "5.00", maxCodAmount: "5000.00", requirementSurcharges: [] },
        expectedVersion: 1,
      });
      const { client, clientSecret } = await admin.createClient({ merchantCode: code, name: "draft test", scopes: ["shipments:read", "shipments:write"] });
      token = await tokenFor(client!.clientId, clientSecret);
    });

    it("holds the create in PENDING_APPROVAL until an operator approves it: READY_FOR_DISPATCH, approvedAt set, version + 1, its event on Kafka", async () => {
      const id = await create();
      expect((await read(id)).body).toMatchObject({ state: "PENDING_APPROVAL", version: 1, approvedAt: null });

      const { shipment } = await operator().approveShipment({ shipmentId: id });
      expect(shipment).toMatchObject({ state: ShipmentState.READY_FOR_DISPATCH, version: 2n });
      const after = await read(id);
      expect(after.etag).toBe('"2"');
      expect(after.body).toMatchObject({ state: "READY_FOR_DISPATCH", version: 2, approvedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      const events = await kafkaEvents(id, (seen) => seen.length >= 2);
      expect(events.slice(0, 2).map((e) => [e.version, e.state])).toEqual([
        [1, ShipmentState.PENDING_APPROVAL],
        [2, ShipmentState.READY_FOR_DISPATCH],
      ]);
    });

    it("cancels on reject with REJECTED_BY_OPERATOR, in the reads and in the event on Kafka", async () => {
      const id = await create();
      await operator().rejectShipment({ shipmentId: id });
      expect((await read(id)).body).toMatchObject({ state: "CANCELLED", version: 2, approvedAt: null });
      const merchantId = String(decodeJwt(token).merchant_id);
      const { shipment } = await createClient(ShipmentService, transport("shipment")).getShipment({ merchantId, shipmentId: id }, await as("gateway", "shipment"));
      expect(shipment).toMatchObject({ state: ShipmentState.CANCELLED, reasonCode: "REJECTED_BY_OPERATOR" });
      const events = await kafkaEvents(id, (seen) => seen.length >= 2);
      expect(events).toEqual([
        { version: 1, state: ShipmentState.PENDING_APPROVAL, reasonCode: "" },
        { version: 2, state: ShipmentState.CANCELLED, reasonCode: "REJECTED_BY_OPERATOR" },
      ]);
    });

    it("refuses a second approve, and a reject of a shipment no longer pending, changing nothing", async () => {
      const id = await create();
      await operator().approveShipment({ shipmentId: id });
      const notPending = { code: Code.FailedPrecondition, rawMessage: "the shipment is READY_FOR_DISPATCH, not PENDING_APPROVAL" };
      await expect(operator().approveShipment({ shipmentId: id })).rejects.toMatchObject(notPending);
      await expect(operator().rejectShipment({ shipmentId: id })).rejects.toMatchObject(notPending);
      expect((await read(id)).body).toMatchObject({ state: "READY_FOR_DISPATCH", version: 2 });
    });
  });

  it("stops every process on SIGTERM, leaving none behind", async () => {
    const pids = mesh.processes.map((p) => p.child.pid);
    await mesh.stop();
    for (const p of mesh.processes) expect({ name: p.name, exitCode: p.child.exitCode }).toEqual({ name: p.name, exitCode: 0 });
    for (const pid of pids) expect(() => process.kill(pid!, 0)).toThrow();
  });
});
